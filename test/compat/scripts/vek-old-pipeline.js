// The public runtime's older README: named items and stages, the operation name last.
const built = await pipeline(
  [
    { name: "api", value: "src/api.ts" },
    { name: "ui", value: "src/ui.ts" },
  ],
  { name: "normalize", run: (path) => ({ path }) },
  { name: "summarize", run: (entry) => ({ ...entry, checked: true }) },
  { name: "component-pipeline" },
);
return built;
