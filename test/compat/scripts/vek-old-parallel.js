// The public runtime's older README: named tasks in an array, the operation name last.
const checked = await parallel(
  [
    { name: "lint", run: () => agent("Run lint", { name: "lint-agent" }) },
    { name: "tests", run: () => agent("Run tests", { name: "test-agent" }) },
  ],
  { name: "verification" },
);
return checked;
