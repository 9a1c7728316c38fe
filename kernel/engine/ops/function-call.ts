/**
 * A call of a registered workflow function (spec 2): one journaled step whose
 * input and output are bounded copies checked against the function's schemas,
 * run in a scope of its own so the function's own calls are keyed under it.
 * A replayed call returns the journaled output, checked again.
 */
import { WorkflowError } from '../../errors.js';
import { deepFreeze, type JsonValue } from '../../json.js';
import { boundaryCopy } from '../../json-boundary.js';
import type { WorkflowRegistryApi } from '../../registry/index.js';
import type { Invocations } from '../invocations.js';
import { mismatch } from '../journal-record.js';
import { scopeKey, type Scope } from '../keys.js';
import type { Steps } from '../steps.js';
import { createFunctionContext, type FunctionHost } from './function-context.js';

export interface FunctionCallDeps {
  readonly registry: WorkflowRegistryApi;
  readonly steps: Steps;
  readonly invocations: Invocations;
  readonly host: FunctionHost;
}

export function invokeFunction(deps: FunctionCallDeps, name: string, input: JsonValue, scope: Scope, label?: string): Promise<JsonValue> {
  const { registry, steps, invocations, host } = deps;
  if (!registry.getFunction(name)) {
    return Promise.reject(new WorkflowError('MISSING_WORKFLOW', `no registered workflow function is named "${name}"`, { name }));
  }
  // A call from the sandbox carries its invocation segment in its key (`<scope>|fn:<name>#<n>#0`).
  const keyed = steps.incomingKey;
  const segment = keyed === undefined ? invocations.next(scope, name, label) : keyed.slice(scopeKey(scope).length + 1, keyed.lastIndexOf('#'));
  steps.identify({ op: name, args: [input] });
  return steps.step(
    scope,
    segment,
    name,
    (record) => {
      if (record.kind !== 'function' || record.name !== name) return mismatch(record, `function ${name}`);
      registry.assertFunctionOutput(name, record.value);
      return record.value;
    },
    async () => {
      // Its own frozen copy of the input, bounded before anything walks it: a JSON copy (structuredClone costs ten times more).
      const frozen = deepFreeze(boundaryCopy(input, `The input of function ${name}`) as Readonly<Record<string, JsonValue>>);
      registry.assertFunctionInput(name, frozen);
      const definition = registry.getFunction(name)!.definition;
      const fnScope = [...scope, segment];
      const context = createFunctionContext(host, fnScope);
      const output = (await host.runInScope(fnScope, () => definition.run(frozen, context))) as JsonValue;
      // Copied (and so bounded) before the schema check walks it.
      const value = boundaryCopy(output, `The output of function ${name}`);
      registry.assertFunctionOutput(name, value);
      return { value, body: { kind: 'function', name, value } };
    },
  );
}
