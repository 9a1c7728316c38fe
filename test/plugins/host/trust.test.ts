/**
 * The project trust decision (plugins/host/trust.ts, session-trust.ts;
 * docs/settings.md "Trust") with Pi's real trust store: flags, Pi's own
 * answer, the stored decision, nothing to trust, defaultProjectTrust, and
 * the prompt of interactive Pi, which stores what Pi's own prompt stores.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProjectTrustStore, type ExtensionContext } from '@earendil-works/pi-coding-agent';
import { isWorkflowError } from '../../../kernel/index.js';
import { resolveSessionTrust, setEmbedderTrust } from '../../../plugins/host/session-trust.js';
import { runsAllowed, untrustedProjectError, type ProjectTrust } from '../../../plugins/host/trust-state.js';
import { decideProjectTrust } from '../../../plugins/host/trust.js';
import { createTempAgentDir, type TempAgentDir } from '../../support/pi-agent-dir.js';

let dir: TempAgentDir;
beforeEach(() => {
  dir = createTempAgentDir();
});
afterEach(() => dir.close());

/** Writes a file of the project, making its folders. */
function plant(relative: string, text = '{}'): string {
  const file = join(dir.cwd, relative);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}
const decide = (extra: { override?: boolean; pi?: boolean } = {}): ProjectTrust => decideProjectTrust({ cwd: dir.cwd, agentDir: dir.agentDir, ...extra });
const store = (): ProjectTrustStore => new ProjectTrustStore(dir.agentDir);
const globalSettings = (settings: Record<string, unknown>): void => writeFileSync(join(dir.agentDir, 'settings.json'), JSON.stringify(settings));

describe('decideProjectTrust', () => {
  it('trusts a project with nothing that needs trust; this package files alone make it undecided, named', () => {
    expect(decide()).toMatchObject({ state: 'trusted', decidedBy: 'no-project-resources', files: [] });
    const role = plant('.pi/pi-extensible-workflows/roles/reviewer.md', '---\ndescription: x\n---\nbody\n');
    const settings = plant('.pi/pi-extensible-workflows/settings.json');
    const trust = decide();
    expect(trust).toMatchObject({ state: 'undecided', decidedBy: 'none', files: [settings, join(role, '..')] });
    // Pi says "trusted" for it (it has none of Pi's files): not enough.
    expect(decide({ pi: true })).toMatchObject({ state: 'undecided', decidedBy: 'none' });
    expect(runsAllowed(trust)).toBe(false);
  });

  it('counts a dangling link as a file: a reader would try it', () => {
    mkdirSync(join(dir.cwd, '.pi', 'pi-extensible-workflows'), { recursive: true });
    symlinkSync('/nonexistent/settings.json', join(dir.cwd, '.pi', 'pi-extensible-workflows', 'settings.json'));
    expect(decide()).toMatchObject({ state: 'undecided', files: [join(dir.cwd, '.pi', 'pi-extensible-workflows', 'settings.json')] });
  });

  it('flags decide first: --approve trusts, --no-approve excludes; both allow runs', () => {
    plant('.pi/pi-extensible-workflows/settings.json');
    store().set(dir.cwd, false);
    expect(decide({ override: true })).toMatchObject({ state: 'trusted', decidedBy: 'flag' });
    const excluded = decide({ override: false });
    expect(excluded).toMatchObject({ state: 'excluded', decidedBy: 'flag' });
    expect(runsAllowed(excluded)).toBe(true);
  });

  it('follows the stored decision of the project or its nearest ancestor, then defaultProjectTrust', () => {
    plant('.pi/pi-extensible-workflows/settings.json');
    store().set(dir.root, true);
    expect(decide()).toMatchObject({ state: 'trusted', decidedBy: 'stored' });
    store().set(dir.cwd, false);
    expect(decide()).toMatchObject({ state: 'untrusted', decidedBy: 'stored' });
    store().setMany([{ path: dir.cwd, decision: null }, { path: dir.root, decision: null }]);
    globalSettings({ defaultProjectTrust: 'always' });
    expect(decide()).toMatchObject({ state: 'trusted', decidedBy: 'default' });
    globalSettings({ defaultProjectTrust: 'never' });
    expect(decide()).toMatchObject({ state: 'untrusted', decidedBy: 'default' });
  });

  it('a stored "not trusted" holds even where nothing needs trust (as Pi 1.x decides)', () => {
    store().set(dir.cwd, false);
    expect(decide()).toMatchObject({ state: 'untrusted', decidedBy: 'stored' });
  });

  it('is never more trusting than Pi; where Pi has files of its own, its "trusted" covers the whole .pi', () => {
    plant('.pi/settings.json');
    plant('.pi/pi-extensible-workflows/settings.json');
    expect(decide({ pi: true })).toMatchObject({ state: 'trusted', decidedBy: 'pi' });
    expect(decide({ pi: false })).toMatchObject({ state: 'undecided', decidedBy: 'pi' });
    // wfcli has no Pi answer: nothing stored, so undecided.
    expect(decide()).toMatchObject({ state: 'undecided', decidedBy: 'none', files: [join(dir.cwd, '.pi', 'settings.json'), join(dir.cwd, '.pi', 'pi-extensible-workflows', 'settings.json')] });
    store().set(dir.cwd, true);
    expect(decide({ pi: false })).toMatchObject({ state: 'untrusted', decidedBy: 'pi' });
  });

  it('a broken trust file is a CONFIG_ERROR naming it', () => {
    writeFileSync(join(dir.agentDir, 'trust.json'), '[1]');
    let thrown: unknown;
    try {
      decide();
    } catch (error) {
      thrown = error;
    }
    expect(isWorkflowError(thrown) && thrown.code).toBe('CONFIG_ERROR');
    expect((thrown as Error).message).toContain(join(dir.agentDir, 'trust.json'));
  });

  it('the refusal names the files and each way to trust the project', () => {
    const settings = plant('.pi/pi-extensible-workflows/settings.json');
    const undecided = untrustedProjectError(decide(), dir.agentDir);
    expect(undecided.code).toBe('CONFIG_ERROR');
    expect(undecided.message).toBe(
      `The project ${dir.cwd} has files that need trust (.pi/pi-extensible-workflows/settings.json) and no trust decision, so no workflow runs here and none of its files is read. ` +
        "Answer the trust prompt of an interactive pi started here, or trust it with /trust in pi and restart pi (or start pi with --approve for one session), or start pi with --no-approve to run workflows without the project's files. " +
        'workflow_status and workflow_catalog still answer.',
    );
    expect(undecided.details).toEqual({ cwd: dir.cwd, reason: 'untrusted_project', state: 'undecided', files: [settings] });
    store().set(dir.cwd, false);
    expect(untrustedProjectError(decide(), dir.agentDir).message).toMatch(
      new RegExp(`^Pi does not trust the project ${dir.cwd} \\(decision stored in ${join(dir.agentDir, 'trust.json')}; its files that need trust: \\.pi/pi-extensible-workflows/settings\\.json\\), so no workflow runs here`),
    );
  });
});

interface Ui {
  readonly asked: string[];
}

/** An extension context whose UI answers the trust prompt with `answer` (undefined: dismissed). */
function context(options: { mode?: string; hasUI?: boolean; piTrusted?: boolean; answer?: (labels: string[]) => string | undefined } = {}): ExtensionContext & Ui {
  const asked: string[] = [];
  return {
    cwd: dir.cwd,
    mode: options.mode ?? 'tui',
    hasUI: options.hasUI ?? true,
    isProjectTrusted: () => options.piTrusted ?? true,
    ui: {
      select: async (title: string, labels: string[]) => {
        asked.push(title);
        return options.answer?.(labels);
      },
      notify: () => undefined,
    },
    asked,
  } as unknown as ExtensionContext & Ui;
}

describe('resolveSessionTrust', () => {
  const resolve = (ctx: ExtensionContext, override?: boolean) => resolveSessionTrust({ ctx, cwd: dir.cwd, agentDir: dir.agentDir, override });
  const storedFile = (): Record<string, boolean> => JSON.parse(readFileSync(join(dir.agentDir, 'trust.json'), 'utf8')) as Record<string, boolean>;

  it('interactive Pi asks about an undecided project with Pi\'s choices and stores the answer where Pi stores its own', async () => {
    plant('.pi/pi-extensible-workflows/roles/reviewer.md');
    let labels: string[] = [];
    const ctx = context({ answer: (offered) => ((labels = offered), 'Trust') });
    expect(await resolve(ctx)).toMatchObject({ state: 'trusted', decidedBy: 'prompt' });
    expect(labels).toEqual(['Trust', `Trust parent folder (${dir.root})`, 'Trust (this session only)', 'Do not trust', 'Do not trust (this session only)']);
    expect(ctx.asked[0]).toContain('.pi/pi-extensible-workflows/roles');
    expect(storedFile()).toEqual({ [dir.cwd]: true });
    // Stored: the next session is not asked.
    const next = context({ answer: () => 'Do not trust' });
    expect(await resolve(next)).toMatchObject({ state: 'trusted', decidedBy: 'stored' });
    expect(next.asked).toEqual([]);
  });

  it('"Do not trust" stores false; "Trust parent folder" stores the parent and clears the project', async () => {
    plant('.pi/pi-extensible-workflows/settings.json');
    expect(await resolve(context({ answer: () => 'Do not trust' }))).toMatchObject({ state: 'untrusted', decidedBy: 'prompt' });
    expect(storedFile()).toEqual({ [dir.cwd]: false });
    store().setMany([{ path: dir.cwd, decision: null }]);
    expect(await resolve(context({ answer: (labels) => labels[1] }))).toMatchObject({ state: 'trusted' });
    expect(storedFile()).toEqual({ [dir.root]: true });
  });

  it('a session-only answer (or a dismissed prompt) stores nothing and holds for the process', async () => {
    // A fresh project path: session-only answers are process-wide.
    dir.close();
    dir = createTempAgentDir();
    plant('.pi/pi-extensible-workflows/settings.json');
    expect(await resolve(context({ answer: () => undefined }))).toMatchObject({ state: 'untrusted', decidedBy: 'prompt' });
    const again = context({ answer: () => 'Trust' });
    expect(await resolve(again)).toMatchObject({ state: 'untrusted', decidedBy: 'prompt' });
    expect(again.asked).toEqual([]);
    expect(() => readFileSync(join(dir.agentDir, 'trust.json'))).toThrow();
  });

  it('print, JSON and RPC modes never ask: the project stays undecided', async () => {
    plant('.pi/pi-extensible-workflows/settings.json');
    for (const mode of ['print', 'json', 'rpc']) {
      const ctx = context({ mode, answer: () => 'Trust' });
      expect(await resolve(ctx)).toMatchObject({ state: 'undecided' });
      expect(ctx.asked).toEqual([]);
    }
  });

  it('the embedder\'s flag decides; Pi\'s command line counts only when Pi\'s session agrees with it', async () => {
    plant('.pi/pi-extensible-workflows/settings.json');
    expect(await resolve(context({ mode: 'print' }), true)).toMatchObject({ state: 'trusted', decidedBy: 'flag' });
    expect(await resolve(context({ mode: 'print', piTrusted: false }), false)).toMatchObject({ state: 'excluded', decidedBy: 'flag' });
    const argv = process.argv;
    try {
      process.argv = [argv[0] ?? 'node', 'pi', '-p', '--approve', 'hello'];
      expect(await resolve(context({ mode: 'print', piTrusted: true }))).toMatchObject({ state: 'trusted', decidedBy: 'flag' });
      // Pi did not take --approve (an SDK embedder's own arguments): not believed.
      expect(await resolve(context({ mode: 'print', piTrusted: false }))).toMatchObject({ state: 'undecided', decidedBy: 'pi' });
      process.argv = [argv[0] ?? 'node', 'pi', '--no-approve'];
      expect(await resolve(context({ mode: 'print', piTrusted: false }))).toMatchObject({ state: 'excluded', decidedBy: 'flag' });
    } finally {
      process.argv = argv;
    }
  });

  it('a headless embedder hands its decision over for its project', async () => {
    plant('.pi/pi-extensible-workflows/settings.json');
    const handed: ProjectTrust = { cwd: dir.cwd, state: 'excluded', decidedBy: 'flag', files: [] };
    setEmbedderTrust(handed);
    try {
      expect(await resolve(context({ answer: () => 'Trust' }))).toEqual(handed);
    } finally {
      setEmbedderTrust(undefined);
    }
    expect(await resolve(context({ mode: 'print' }))).toMatchObject({ state: 'undecided' });
  });
});
