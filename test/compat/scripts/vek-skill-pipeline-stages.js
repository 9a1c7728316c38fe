// The public runtime's skill: pipeline(operationName, itemsRecord, stagesRecord).
const processed = await pipeline(
  "artifacts",
  { api: "api.json", ui: "ui.json" },
  {
    normalize: (file) => ({ file, normalized: true }),
    finalize: (entry, key) => `${key}:${entry.file}`,
  },
);
return processed;
