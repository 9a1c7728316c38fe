// The public runtime's skill: shell as a deterministic gate.
const testRes = await shell("exit 0", { env: { CI: "1" } });
if (testRes.exitCode === 0) {
  return { ok: true };
}
return { ok: false };
