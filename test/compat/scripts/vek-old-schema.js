// The public runtime's older README: a structured result through `schema`.
const result = await agent("Count failures", {
  name: "count-failures",
  schema: {
    type: "object",
    properties: { count: { type: "number" } },
    required: ["count"],
    additionalProperties: false,
  },
});
return result;
