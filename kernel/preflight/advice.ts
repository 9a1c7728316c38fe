/**
 * What to write instead: the way out for the names a script reaches for that
 * a workflow does not have (Node and browser globals, other runtimes'
 * helpers), and for the modules it tries to import. Scripts are mostly
 * written by models; a refusal that names the alternative is fixed in one try.
 */

const FILES = 'read and write files through an agent (agent("Read src/a.ts and ...")), or run a command with shell("cat src/a.ts")';
const COMMANDS = 'run commands with shell(command), which returns { exitCode, stdout, stderr }';
const NETWORK = 'ask an agent that has web tools, or run shell("curl -s <url>")';
const TIMERS = 'a workflow has no timers: it waits only for results; to pause, await shell("sleep 5")';
const CLOCK = 'a workflow replays deterministically, so it cannot read the clock or draw random numbers: pass such values in args, or ask shell("date +%s")';
const LOGGING = 'use log(...) as you would console.log (strings as they are, other values as JSON) to record progress, and phase(name) to mark a stage';
const NO_GLOBAL = 'a script has no global object: use the names directly';
const PRIMITIVES_ARE_GLOBALS = 'the workflow primitives are globals: call agent(...), shell(...), parallel(...) directly';

/** Globals a script might expect, and what it can do instead. */
const GLOBALS: Readonly<Record<string, string>> = {
  console: LOGGING,
  require: `a script has no modules: ${COMMANDS}; ${FILES}; registered functions (workflow_catalog lists them) run host code`,
  module: 'a script has no modules: return the workflow result',
  exports: 'a script has no modules: return the workflow result',
  fs: `there is no file system API: ${FILES}`,
  path: 'there is no path module: build paths with string operations',
  child_process: COMMANDS,
  fetch: `there is no network API: ${NETWORK}`,
  XMLHttpRequest: `there is no network API: ${NETWORK}`,
  WebSocket: `there is no network API: ${NETWORK}`,
  setTimeout: TIMERS,
  setInterval: TIMERS,
  setImmediate: TIMERS,
  clearTimeout: TIMERS,
  clearInterval: TIMERS,
  queueMicrotask: 'a workflow has no scheduling API: await promises instead',
  sleep: TIMERS,
  process: 'a script has no process: pass values in args (launch args, or wfcli run --input); shell("pwd") gives the directory, shell("printenv NAME") a variable',
  cwd: 'shell("pwd") gives the workflow directory',
  __dirname: 'shell("pwd") gives the workflow directory',
  __filename: 'a script has no file name; pass what it needs in args',
  Buffer: 'there is no Buffer: use strings; for encodings ask shell("base64 ...")',
  atob: 'there is no base64 API: ask shell("base64 -d ...")',
  btoa: 'there is no base64 API: ask shell("base64 ...")',
  TextEncoder: 'there is no text encoding API: work with strings',
  TextDecoder: 'there is no text encoding API: work with strings',
  URL: 'there is no URL API: parse URLs with string operations or a regular expression',
  URLSearchParams: 'there is no URL API: build query strings with encodeURIComponent',
  structuredClone: 'copy JSON values with JSON.parse(JSON.stringify(value))',
  crypto: CLOCK,
  performance: CLOCK,
  globalThis: NO_GLOBAL,
  window: NO_GLOBAL,
  self: NO_GLOBAL,
  global: NO_GLOBAL,
  document: 'a workflow has no browser: ask an agent that has browser tools',
  conversation:
    'a workflow does not see the conversation that launched it: pass what it needs in args when you launch it. For a conversation with one agent over several turns, use a handle: const dev = agent.create({ name: "dev" }); await dev.send("..."); await dev.send("...")',
  context: PRIMITIVES_ARE_GLOBALS,
  ctx: PRIMITIVES_ARE_GLOBALS,
  budget: 'a script cannot read its budget: give the launch a budget (the workflow tool\'s budget parameter, or wfcli run --budget), and the run stops or pauses at it',
  workflow: 'a workflow cannot start another workflow: call a registered function by name (workflow_catalog lists them), or put the steps in this script',
  spawn: 'start an agent with agent(prompt, options)',
  subagent: 'start an agent with agent(prompt, options)',
  retry: 'retry an agent with agent(prompt, { retries: 2 }), or write a loop: for (let i = 0; i < 3; i += 1) { ... }',
  verify: 'there is no verify helper: ask a reviewing agent, with an outputSchema when the script reads its answer',
  judgePanel: 'there is no judgePanel helper: run judges with parallel("judges", { a: () => agent(...), b: () => agent(...) }) and compare their answers',
  gate: 'there is no gate helper: write the loop: for (let i = 0; i < 3; i += 1) { const value = await agent(...); if (ok(value)) break; }',
  loopUntilDry: 'there is no loopUntilDry helper: write the loop with a for statement and await agent(...) in it',
  completenessCheck: 'there is no completenessCheck helper: ask an agent to check the results',
  releaseWorktree: 'worktrees are scoped: withWorktree("name", async ({ path, branch }) => { ... }) materializes one for the callback',
  Intl: 'Intl is not available: its results depend on the machine\'s locale and time zone',
  eval: 'dynamic code is not allowed in workflow scripts',
  Function: 'dynamic code is not allowed in workflow scripts',
};

/** The way out for a global the script uses but does not have, or undefined. */
export function globalAdvice(name: string): string | undefined {
  return Object.hasOwn(GLOBALS, name) ? GLOBALS[name] : undefined;
}

/** The way out for `import ... from '<module>'`. */
export function moduleAdvice(module: string): string {
  const bare = module.replace(/^node:/, '').split('/')[0] ?? module;
  if (bare === 'fs' || bare === 'fs-extra') return FILES;
  if (bare === 'child_process' || bare === 'execa' || bare === 'zx') return COMMANDS;
  if (bare === 'http' || bare === 'https' || bare === 'node-fetch' || bare === 'axios') return NETWORK;
  if (bare === 'timers') return TIMERS;
  if (bare === 'path') return GLOBALS['path']!;
  return `${COMMANDS}; ${FILES}; registered functions (workflow_catalog lists them) run host code`;
}

export { CLOCK };
