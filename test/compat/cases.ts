/**
 * The compatibility suite: scripts written from the published documentation
 * of the public runtime we succeed (vekexasia/pi-extensible-workflows: its
 * README, docs pages, skill, and its older README), of peers with the same
 * primitive names (Claude Code's dynamic workflows, QuintinShaw's
 * pi-dynamic-workflows), and in the style a model writes without a guide;
 * each with the outcome we promise (docs/runs.md, "Scripts from other
 * runtimes"). Agents answer `echo:<prompt>` unless `answers` says otherwise
 * (a schema-shaped value for `outputSchema` calls).
 *
 * `pattern` is the issue-26 finding a case checks (1 prompt placeholders,
 * 2 named stages, 3 meta and default export, 4 peer call shapes, 5 foreign
 * options, 6 clocks, 7 script errors, 8 missing names, 9 floating calls);
 * `cli` cases also run through `wfcli run --script` (test/e2e/script-compat.test.ts).
 */
import type { JsonValue } from '../../kernel/json.js';

export type Expectation =
  /** The run completes with this value. */
  | { readonly value: JsonValue }
  /** The preflight refuses the script (INVALID_SYNTAX), its message holding each fragment; no run is created. */
  | { readonly preflight: readonly string[] }
  /** The run fails with this code, its message holding each fragment. */
  | { readonly failure: { readonly code: string; readonly message: readonly string[] } };

export interface CompatCase {
  readonly file: string;
  readonly from: string;
  readonly expect: Expectation;
  readonly args?: JsonValue;
  /** Fragments of the warnings the run records; it records one per option name they mention (`Agent option "x"`), and none other. */
  readonly warnings?: readonly string[];
  /** Submitted results by agent prompt (the default is `{ result: 'echo:<prompt>' }`). */
  readonly answers?: Readonly<Record<string, JsonValue>>;
  /** `export const meta` the preflight reads. */
  readonly meta?: { readonly name?: string; readonly description?: string };
  readonly pattern?: number;
  readonly cli?: true;
  /** The messages the run's log() calls record, in order. */
  readonly logs?: readonly string[];
}

const VEK = 'vekexasia/pi-extensible-workflows';
const VEK_OLD = `${VEK} README before the named combinators (commit 1059449)`;
const CLAUDE = 'Claude Code dynamic workflows (published guides of the Workflow tool)';
const QS = 'QuintinShaw/pi-dynamic-workflows skills/workflow-authoring';
const MODEL = 'a model writing without a guide';

const echo = (prompt: string): string => `echo:${prompt}`;
const SCHEMA_WARNING = 'Agent option "schema"';

export const COMPAT_CASES: readonly CompatCase[] = [
  // ---- the public runtime's current documentation -------------------------
  {
    file: 'vek-readme-review.js',
    from: `${VEK} README.md`,
    pattern: 1,
    cli: true,
    expect: { value: echo(`Summarize these reports:\n\n${JSON.stringify({ api: echo('Review the API.'), tests: echo('Review the tests.') }, null, 2)}`) },
  },
  {
    file: 'vek-skill-passing-results.js',
    from: `${VEK} skill, "Passing agent results"`,
    pattern: 1,
    expect: {
      value: {
        findings: echo('Inspect the implementation.'),
        fix: echo(`Propose the smallest fix from these findings:\n\n${echo('Inspect the implementation.')}`),
      },
    },
  },
  { file: 'vek-skill-shell-gate.js', from: `${VEK} skill, shell`, expect: { value: { ok: true } } },
  { file: 'vek-docs-fix-loop.js', from: `${VEK} docs/developers.html, worktrees`, expect: { value: { attempt: 2 } } },
  {
    file: 'vek-docs-combine.js',
    from: `${VEK} docs/developers.html`,
    pattern: 1,
    expect: { value: echo(`Combine these reports:\n${JSON.stringify({ api: echo('Inspect the API'), ui: echo('Inspect the UI') }, null, 2)}`) },
  },
  {
    file: 'vek-docs-issues-function.js',
    from: `${VEK} docs/developers.html, registered functions in worktrees`,
    pattern: 8,
    expect: { preflight: ['"developUntilApproved" is not defined in workflow scripts', 'the registered functions are', 'workflow_catalog lists them'] },
  },
  { file: 'vek-extensions-advisor.js', from: `${VEK} docs/extensions.html, setup hook options`, expect: { value: echo('Review the package') } },
  {
    file: 'vek-skill-pipeline-stages.js',
    from: `${VEK} skill, pipeline(operationName, itemsRecord, stagesRecord)`,
    pattern: 2,
    expect: { value: { api: 'api:api.json', ui: 'ui:ui.json' } },
  },
  // ---- the public runtime's older README -----------------------------------
  {
    file: 'vek-old-meta.js',
    from: VEK_OLD,
    pattern: 3,
    meta: { name: 'release-check', description: 'Check a release' },
    // The old README's tools list meant an allow-list there; here it restricts nothing, and the launch says so.
    warnings: ['Agent option "name" (at 1:140)', 'use label for the display name', 'Agent option "tools" (at 1:140) restricts nothing: ["read"]'],
    expect: { value: { result: echo('Inspect the package') } },
  },
  {
    file: 'vek-old-schema.js',
    from: VEK_OLD,
    pattern: 5,
    cli: true,
    warnings: ['Agent option "name"', `${SCHEMA_WARNING} (at 2:22) is read as outputSchema`],
    answers: { 'Count failures': { count: 3 } },
    expect: { value: { count: 3 } },
  },
  {
    file: 'vek-old-parallel.js',
    from: VEK_OLD,
    pattern: 4,
    cli: true,
    expect: {
      preflight: [
        "this is an older runtime's parallel([{ name, run }], { name }); write parallel(\"verification\", { lint: () => agent(\"Run lint\", { name: \"lint-agent\" }), tests: () => agent(\"Run tests\", { name: \"test-agent\" }) })",
      ],
    },
  },
  {
    file: 'vek-old-pipeline.js',
    from: VEK_OLD,
    pattern: 4,
    expect: {
      preflight: [
        'write pipeline("component-pipeline", { api: "src/api.ts", ui: "src/ui.ts" }, { normalize: (path) => ({ path }), summarize: (entry) => ({ ...entry, checked: true }) })',
      ],
    },
  },
  {
    file: 'vek-old-isolation.js',
    from: VEK_OLD,
    pattern: 5,
    // isolation: "worktree" runs the agent in a worktree of its own (docs/worktrees.md): only `name` is warned about.
    warnings: ['Agent option "name"'],
    expect: { value: echo('Implement the fix') },
  },
  // ---- Claude Code's dynamic workflows --------------------------------------
  {
    file: 'cc-audit-thunks.js',
    from: CLAUDE,
    pattern: 4,
    cli: true,
    args: { files: ['a.ts', 'b.ts'] },
    meta: { name: 'route-audit', description: 'Audit route files for missing auth checks' },
    warnings: [`${SCHEMA_WARNING} (at 12:5) is read as outputSchema`],
    answers: { 'Audit a.ts for routes without an auth check.': { missing: ['GET /admin'] }, 'Audit b.ts for routes without an auth check.': { missing: [] } },
    expect: { value: { files: ['a.ts', 'b.ts'], findings: [{ missing: ['GET /admin'] }, { missing: [] }] } },
  },
  {
    file: 'cc-pipeline-spread-stages.js',
    from: CLAUDE,
    pattern: 4,
    args: { modules: ['auth'] },
    expect: {
      preflight: [
        'this pipeline call passes its stages as separate arguments; write pipeline("items", modules, { step1: (mod) => agent(`Port ${mod} to the new API.`), step2: (value, key) => ((diff, mod) => agent(`Review the port of ${mod}:\\n${diff}`))(value, modules[key], Number(key)) })',
        "Each stage is called as (value, key)",
      ],
    },
  },
  {
    file: 'cc-promise-all-map.js',
    from: CLAUDE,
    pattern: 4,
    expect: { preflight: ["agent(...) in a .map(...) callback", "await parallel('questions', questions.map((q) => () => agent(...)))"] },
  },
  { file: 'cc-budget.js', from: CLAUDE, pattern: 8, expect: { preflight: ['"budget" is not defined in workflow scripts: a script cannot read its budget'] } },
  { file: 'cc-nested-workflow.js', from: CLAUDE, pattern: 8, expect: { preflight: ['"workflow" is not defined in workflow scripts: a workflow cannot start another workflow'] } },
  {
    file: 'cc-agent-type.js',
    from: CLAUDE,
    pattern: 5,
    warnings: ['Agent option "agentType" (at 2:19)', 'use role with the roles plugin'],
    expect: { value: echo('Map the modules of this repository.') },
  },
  {
    file: 'cc-worktree-isolation.js',
    from: CLAUDE,
    pattern: 5,
    cli: true,
    // Each agent runs in a fresh worktree of its own, without a warning (test/plugins/worktrees/isolation.test.ts, test/e2e/wfcli-isolation.test.ts).
    expect: { value: [echo('Fix the flaky login test.'), echo('Fix the flaky signup test.')] },
  },
  {
    file: 'cc-adversarial-loop.js',
    from: CLAUDE,
    answers: { 'List suspicious functions.': { items: ['parse', 'render'] }, 'Try to refute this finding: parse': { real: true }, 'Try to refute this finding: render': { real: false } },
    expect: { value: ['parse'] },
  },
  {
    file: 'cc-phase-log.js',
    from: CLAUDE,
    expect: { value: echo(`Write a report from these notes:\n${echo('Research the caching layer.')}`) },
  },
  { file: 'cc-date-now.js', from: CLAUDE, pattern: 6, cli: true, expect: { preflight: ['Line 2, column 17: Date.now() reads the clock', 'Pass the time in args', "shell('date +%s')"] } },
  { file: 'cc-math-random.js', from: CLAUDE, pattern: 6, expect: { preflight: ['Line 3, column 35: Math.random() draws a random number', 'Pass random values or a seed in args'] } },
  // ---- QuintinShaw's pi-dynamic-workflows -----------------------------------
  {
    file: 'qs-meta-phases-tier.js',
    from: QS,
    pattern: 3,
    meta: { name: 'inspect_project', description: 'Inspect this repository and summarize the main modules' },
    warnings: ['Agent option "tier" (at 9:25)', 'name a model alias instead'],
    expect: {
      value: {
        inventory: echo('List the top-level modules of this repository.'),
        summary: echo(`Summarize each module:\n${echo('List the top-level modules of this repository.')}`),
      },
    },
  },
  {
    file: 'cc-schema-votes.js',
    from: CLAUDE,
    cli: true,
    answers: { 'Vote ship or hold from the security angle.': { vote: 'ship' }, 'Vote ship or hold from the performance angle.': { vote: 'ship' } },
    warnings: ['Agent option "schema" (at 3:66) is read as outputSchema'],
    expect: { value: 'ship' },
  },
  {
    file: 'model-log-args.js',
    from: `${MODEL} (console.log habits)`,
    cli: true,
    logs: ['Plan ready: {"steps":["lint","test"]} with 2 steps', '{"done":false}'],
    expect: { value: ['lint', 'test'] },
  },
  {
    file: 'model-options-first.js',
    from: MODEL,
    cli: true,
    expect: { preflight: ["Line 2, column 23: agent takes its prompt as the first argument and its options second: write agent('Summarize README.md in three bullets.', { label: 'summary' })"] },
  },
  {
    file: 'model-conversation.js',
    from: MODEL,
    cli: true,
    expect: { preflight: ['Line 3, column 21: "conversation" is not defined in workflow scripts', 'const dev = agent.create({ name: "dev" }); await dev.send("...")'] },
  },
  {
    file: 'model-tools-grep.js',
    from: `${MODEL} (the selector example of an earlier skill)`,
    cli: true,
    warnings: ['Agent option "tools" (at 2:22) names "grep", which the launching session does not have (its tools: read, bash, edit, write), so the agent gets read'],
    expect: { value: echo('Review the parser for bugs.') },
  },
  {
    file: 'model-tools-positive.js',
    from: MODEL,
    cli: true,
    warnings: ['Agent option "tools" (at 2:21) restricts nothing: ["read", "bash"] only enables tools', 'write ["!*", "read", "bash"] to grant only those'],
    expect: { value: echo('Summarize the build scripts.') },
  },
  { file: 'qs-console.js', from: QS, pattern: 8, cli: true, expect: { preflight: ['Line 3, column 1: "console" is not defined in workflow scripts: use log(...) as you would console.log'] } },
  { file: 'qs-process-cwd.js', from: QS, pattern: 8, expect: { preflight: ['"process" is not defined in workflow scripts: a script has no process', 'shell("pwd")'] } },
  { file: 'qs-pipeline-item-index.js', from: QS, pattern: 4, cli: true, expect: { preflight: ['write pipeline("items", ids, {', "not the original item"] } },
  {
    file: 'qs-parallel-thunks.js',
    from: QS,
    pattern: 4,
    expect: {
      value: ['auth', 'billing', 'search'].map((id) => ({ id, summary: echo(`Summarize the ${id} module.`) })),
    },
  },
  { file: 'qs-markdown-fence.js', from: `${QS} (Markdown fences are accepted there)`, expect: { value: echo('Name the test runner of this repository.') } },
  {
    file: 'qs-continue-from.js',
    from: QS,
    pattern: 5,
    warnings: ['Agent option "continueFrom" (at 3:20)', 'agent.create({ name: "dev" })'],
    expect: { value: { plan: echo('Plan the refactor.'), next: echo('Now implement step one.') } },
  },
  // ---- a model writing without a guide ---------------------------------------
  {
    file: 'model-export-default.js',
    from: MODEL,
    pattern: 3,
    cli: true,
    expect: { value: { names: ['a.ts', 'b.ts'], reviews: { 'a.ts': echo('Review a.ts'), 'b.ts': echo('Review b.ts') } } },
  },
  {
    file: 'model-export-default-args.js',
    from: MODEL,
    pattern: 3,
    args: { who: 'Ada' },
    meta: { name: 'greeter', description: 'Greets through an agent' },
    expect: { value: echo('Greet Ada') },
  },
  { file: 'model-require-fs.js', from: MODEL, pattern: 8, expect: { preflight: ['"require" is not defined in workflow scripts: a script has no modules'] } },
  { file: 'model-set-timeout.js', from: MODEL, pattern: 8, expect: { preflight: ['"setTimeout" is not defined in workflow scripts: a workflow has no timers', 'await shell("sleep 5")'] } },
  { file: 'model-floating.js', from: MODEL, pattern: 9, cli: true, expect: { preflight: ['Line 2, column 1: agent(...) starts work whose promise is never awaited or kept', 'write "await agent(...)"'] } },
  {
    file: 'model-type-error.js',
    from: MODEL,
    pattern: 7,
    cli: true,
    expect: { failure: { code: 'INTERNAL_ERROR', message: ["Line 3, column 28: TypeError: Cannot read properties of undefined (reading 'toFixed')"] } },
  },
  { file: 'model-throw.js', from: MODEL, pattern: 7, expect: { failure: { code: 'INTERNAL_ERROR', message: ['Line 4, column 9: Error: the build failed with exit code 3'] } } },
  { file: 'model-unknown-function.js', from: MODEL, pattern: 8, expect: { preflight: ['"summarizeDiff" is not defined in workflow scripts: it is not a workflow primitive or a registered function'] } },
  {
    file: 'model-double-braces.js',
    from: `${MODEL} (this runtime's own template form before issue 26)`,
    pattern: 1,
    expect: { failure: { code: 'INVALID_METADATA', message: ['prompt value "file" is not used by the template: write {file} where it belongs ({{file}} is the literal text {file}'] } },
  },
  { file: 'model-named-stages.js', from: 'spec 2 "pipeline(name, items, stages)"', pattern: 2, cli: true, expect: { value: { a: 'a=2', b: 'b=4' } } },
  { file: 'model-parallel-array.js', from: MODEL, pattern: 4, expect: { value: ['node', 'git'] } },
  { file: 'model-fetch.js', from: MODEL, pattern: 8, expect: { preflight: ['"fetch" is not defined in workflow scripts: there is no network API'] } },
  { file: 'model-import-child-process.js', from: MODEL, pattern: 8, expect: { preflight: ['Line 1, column 1: import declarations are not allowed in workflow scripts (a script has no modules): run commands with shell(command)'] } },
  {
    file: 'model-output-schema.js',
    from: MODEL,
    answers: { 'Count the TODO comments and summarize them.': { count: 2, summary: 'two TODOs in src/' } },
    expect: { value: 'two TODOs in src/' },
  },
  {
    file: 'model-handle.js',
    from: MODEL,
    expect: { value: { plan: echo('Plan the change.'), done: echo(`Implement this plan:\n${echo('Plan the change.')}`) } },
  },
  { file: 'model-tasks-started.js', from: MODEL, pattern: 4, expect: { preflight: ['Line 3, column 8: parallel task "api" is work that already started', "write api: () => agent('Review the API.')"] } },
  { file: 'model-new-date.js', from: MODEL, pattern: 6, expect: { preflight: ['Line 3, column 21: new Date() reads the clock'] } },
];
