/**
 * The trust decision of a Pi session's workflow host, made at
 * `session_start` before any project file is read (docs/settings.md "Trust"):
 *
 * - a headless embedder (`wfcli`) hands its decision over (`embedderTrust`);
 * - else `--approve` / `--no-approve` (the embedder's `trust` option, or the
 *   process's command line read with Pi's own parser, believed only when
 *   Pi's session agrees: an SDK embedder's arguments are not Pi's);
 * - else trust.ts decides from Pi's answer and the stored decision;
 * - an undecided project in interactive Pi is asked about with Pi's own
 *   choices, and the answer is stored where and as Pi stores its own (the
 *   "this session only" answers are kept for the process, as Pi keeps its).
 *
 * Pi's `project_trust` extension event is not emitted for this package's
 * files (Pi emits it only for its own).
 */
import { realpathSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { ProjectTrustStore, parseArgs, type ExtensionContext, type ProjectTrustUpdate } from '@earendil-works/pi-coding-agent';
import { messageOf } from '../../kernel/index.js';
import { decideProjectTrust } from './trust.js';
import type { ProjectTrust } from './trust-state.js';

/** Process-wide: the embedder's decision and the session-only answers survive Pi's fresh module loads (`/reload`). */
const EMBEDDER_SLOT = Symbol.for('pi-extensible-workflows.embedder-trust');
const SESSION_ANSWERS_SLOT = Symbol.for('pi-extensible-workflows.session-trust-answers');

/** A headless embedder's decision for the session it is about to start; undefined clears it. */
export function setEmbedderTrust(trust: ProjectTrust | undefined): void {
  if (trust === undefined) Reflect.deleteProperty(globalThis, EMBEDDER_SLOT);
  else Reflect.set(globalThis, EMBEDDER_SLOT, Object.freeze({ ...trust, files: Object.freeze([...trust.files]) }));
}

const STATES: ReadonlySet<unknown> = new Set(['trusted', 'excluded', 'untrusted', 'undecided']);

/** The embedder's decision for `cwd`; one of another shape (another copy of the package) is not taken. */
function embedderTrust(cwd: string): ProjectTrust | undefined {
  const held: unknown = Reflect.get(globalThis, EMBEDDER_SLOT);
  if (typeof held !== 'object' || held === null) return undefined;
  const trust = held as Partial<ProjectTrust>;
  const valid = trust.cwd === cwd && STATES.has(trust.state) && typeof trust.decidedBy === 'string' && Array.isArray(trust.files);
  return valid ? (trust as ProjectTrust) : undefined;
}

function sessionAnswers(): Map<string, boolean> {
  let answers: unknown = Reflect.get(globalThis, SESSION_ANSWERS_SLOT);
  if (!(answers instanceof Map)) Reflect.set(globalThis, SESSION_ANSWERS_SLOT, (answers = new Map<string, boolean>()));
  return answers as Map<string, boolean>;
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** `--approve` / `--no-approve` on Pi's command line, when Pi's session trust agrees with it. */
function commandLineOverride(ctx: ExtensionContext): boolean | undefined {
  let flag: boolean | undefined;
  try {
    flag = parseArgs(process.argv.slice(2)).projectTrustOverride;
  } catch {
    return undefined;
  }
  return flag === undefined || flag !== ctx.isProjectTrusted() ? undefined : flag;
}

interface Choice {
  readonly label: string;
  readonly trusted: boolean;
  readonly updates: readonly ProjectTrustUpdate[];
}

/** Pi's own choices (its trust prompt, with the "this session only" ones), saved the same way. */
function choices(cwd: string): Choice[] {
  const path = canonical(cwd);
  const parent = dirname(path);
  return [
    { label: 'Trust', trusted: true, updates: [{ path, decision: true }] },
    ...(parent === path ? [] : [{ label: `Trust parent folder (${parent})`, trusted: true, updates: [{ path: parent, decision: true }, { path, decision: null }] }]),
    { label: 'Trust (this session only)', trusted: true, updates: [] },
    { label: 'Do not trust', trusted: false, updates: [{ path, decision: false }] },
    { label: 'Do not trust (this session only)', trusted: false, updates: [] },
  ];
}

async function ask(ctx: ExtensionContext, trust: ProjectTrust, agentDir: string): Promise<ProjectTrust> {
  const files = trust.files.map((file) => relative(trust.cwd, file)).join(', ');
  const title =
    `Trust project folder?\n${canonical(trust.cwd)}\n\n` +
    `This allows pi-extensible-workflows to read the project's workflow files (${files}): project settings and roles choose the models and instructions of workflow agents. ` +
    'The answer is saved like the answer to Pi\'s own trust prompt (/trust changes it).';
  const options = choices(trust.cwd);
  const selected = await ctx.ui.select(title, options.map((option) => option.label));
  const chosen = options.find((option) => option.label === selected);
  // Dismissed: not trusted, nothing saved (as Pi does).
  const trusted = chosen?.trusted ?? false;
  let saved = false;
  if (chosen !== undefined && chosen.updates.length > 0) {
    try {
      new ProjectTrustStore(agentDir).setMany([...chosen.updates]);
      saved = true;
    } catch (error) {
      ctx.ui.notify(`Workflow: the trust decision could not be saved to ${agentDir}/trust.json (${messageOf(error)}); it holds for this session only`, 'warning');
    }
  }
  // What is not saved holds for the rest of this process (later sessions, /reload), as Pi's own session-only answers do.
  if (!saved) sessionAnswers().set(canonical(trust.cwd), trusted);
  return { ...trust, state: trusted ? 'trusted' : 'untrusted', decidedBy: 'prompt' };
}

export interface SessionTrustInput {
  readonly ctx: ExtensionContext;
  readonly cwd: string;
  readonly agentDir: string;
  /** The embedder's `--approve` (true) / `--no-approve` (false). */
  readonly override?: boolean | undefined;
}

/** The session's decision; asks in interactive Pi when the project is undecided. @throws CONFIG_ERROR for a broken trust file */
export async function resolveSessionTrust(input: SessionTrustInput): Promise<ProjectTrust> {
  const { ctx, cwd, agentDir } = input;
  const handed = embedderTrust(cwd);
  if (handed !== undefined) return handed;
  const trust = decideProjectTrust({ cwd, agentDir, override: input.override ?? commandLineOverride(ctx), pi: ctx.isProjectTrusted() });
  if (trust.state !== 'undecided' || trust.decidedBy !== 'none') return trust;
  const answered = sessionAnswers().get(canonical(cwd));
  if (answered !== undefined) return { ...trust, state: answered ? 'trusted' : 'untrusted', decidedBy: 'prompt' };
  // Only interactive Pi asks, as Pi itself does; print, JSON and RPC refuse.
  if (!ctx.hasUI || ctx.mode !== 'tui') return trust;
  return ask(ctx, trust, agentDir);
}
