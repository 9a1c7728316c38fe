// Claude Code style: each item through stages given as separate arguments.
const modules = args.modules;
const ported = await pipeline(
  modules,
  (mod) => agent(`Port ${mod} to the new API.`),
  (diff, mod) => agent(`Review the port of ${mod}:\n${diff}`),
);
return ported;
