/**
 * Calls of plugin primitives (checkpoint, evidence, tools.X, withWorktree):
 * what the step replays and what it performs. The plugin only performs; the
 * execution journals the value and replays it on later segments.
 */
import type { JsonValue } from '../../json.js';
import { boundaryCopy } from '../../json-boundary.js';
import type { PrimitiveCall, PrimitiveContext, PrimitiveDefinition } from '../../contracts/primitive.js';
import type { RunAccess } from '../../contracts/run-access.js';
import type { WorkflowRunContext } from '../../contracts/function-context.js';
import { writeEvidence } from '../../store/index.js';
import type { Decisions } from '../decisions.js';
import type { Scope } from '../keys.js';
import { mismatch } from '../journal-record.js';
import type { Steps } from '../steps.js';
import type { ScopeCwds } from '../scope-cwds.js';
import { failedCall, recordCall, type PrimitiveCallRecord } from '../call-records.js';

export interface PrimitiveDeps {
  readonly run: WorkflowRunContext;
  readonly runDir: string;
  /** The run's current phase, recorded with each performed call. */
  phase(): string | undefined;
  readonly signal: AbortSignal;
  readonly access: RunAccess;
  readonly decisions: Decisions;
  readonly scopeCwds: ScopeCwds;
}

export interface PrimitiveStep {
  /** The journal record name: `name`, or `name.member` for namespaces. */
  readonly what: string;
  replay(key: string, value: JsonValue): JsonValue;
  perform(key: string): Promise<JsonValue>;
}

export function primitiveStep(
  primitive: PrimitiveDefinition,
  member: string | undefined,
  site: string,
  scope: Scope,
  args: readonly JsonValue[],
  deps: PrimitiveDeps,
): PrimitiveStep {
  const { run } = deps;
  const context = (key: string): PrimitiveContext => ({
    run: { runId: run.runId, sessionId: run.sessionId, cwd: run.cwd, runDir: deps.runDir, workflowName: run.workflow.name },
    signal: deps.signal,
    awaitDecision: (request) => deps.decisions.await(key, request),
    writeEvidence: (text) => writeEvidence(deps.runDir, text),
    access: deps.access,
  });
  const cwd = deps.scopeCwds.of(scope).cwd;
  const call = (key: string): PrimitiveCall => ({ name: primitive.name, ...(member === undefined ? {} : { member }), args, key, site, scope, cwd });
  // A scope primitive's reference may move everything inside the scope (`name:label`) elsewhere.
  const enter = (value: JsonValue): JsonValue => {
    const inner = primitive.kind === 'scope' ? primitive.scopeCwd?.(value) : undefined;
    if (inner !== undefined) deps.scopeCwds.set([...scope, `${primitive.name}:${String(args[0])}`], inner);
    return value;
  };
  const what = member === undefined ? primitive.name : `${primitive.name}.${member}`;
  return {
    what,
    replay(key, value) {
      primitive.replay?.(value, call(key), context(key));
      return enter(value);
    },
    async perform(key) {
      // Spec 1 "Rules": the call's metadata only, never its arguments or value; a failure by its code.
      const record = { op: 'primitive' as const, key, name: what, path: [...scope], phase: deps.phase() ?? null, startedAt: new Date().toISOString() };
      let value: JsonValue;
      try {
        value = boundaryCopy(await primitive.run(call(key), context(key)), `The value of ${what}`);
      } catch (error) {
        recordCall<PrimitiveCallRecord>(deps.runDir, { ...record, endedAt: new Date().toISOString(), ...failedCall(error) });
        throw error;
      }
      recordCall<PrimitiveCallRecord>(deps.runDir, { ...record, endedAt: new Date().toISOString(), status: 'completed' });
      return enter(value);
    },
  };
}

/** A primitive call as one journaled step: performed once, replayed from its record after. */
export function performPrimitive(steps: Steps, primitive: PrimitiveDefinition, member: string | undefined, site: string, scope: Scope, args: readonly JsonValue[], deps: PrimitiveDeps): Promise<JsonValue> {
  const step = primitiveStep(primitive, member, site, scope, args, deps);
  return steps.step(
    scope,
    site,
    step.what,
    (record) => (record.kind === 'primitive' && record.name === step.what ? step.replay(record.key, record.value) : mismatch(record, step.what)),
    async (key) => {
      const value = await step.perform(key);
      return { value, body: { kind: 'primitive', name: step.what, value } };
    },
  );
}
