/** The launch request at the tool boundary, validated with ajv. */
import type { LaunchRequest } from '../contracts/engine-api.js';
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { validate as compiledLaunchRequest } from '../compiled-schemas/launch-request.js';
import { formatAjvErrors } from '../json-schema.js';
import type { PrecompiledValidator } from '../precompiled.js';
import { WorkflowError } from '../errors.js';
import { checkBoundary } from '../json-boundary.js';
import { rejectLegacyLaunchField } from '../settings/index.js';



// Build-time compiled (launch-schema.ts): ajv's own code for the schema, errors included.
const validate = compiledLaunchRequest as unknown as PrecompiledValidator<unknown>;

export interface CheckedLaunch extends LaunchRequest {
  readonly cwd: string;
  readonly source: string;
}

export function checkLaunchRequest(request: unknown): CheckedLaunch {
  if (typeof request === 'object' && request !== null) rejectLegacyLaunchField(request as Record<string, unknown>, 'launch options');
  if (!validate(request)) {
    const both = validate.errors?.some((error) => error.keyword === 'oneOf');
    const message = both ? 'give exactly one of script or scriptPath' : formatAjvErrors(validate.errors);
    throw new WorkflowError('INVALID_METADATA', `Invalid workflow launch: ${message}`);
  }
  const checked = request as unknown as LaunchRequest;
  // The args reach the snapshot, the sandbox and every function: bounded before anything recurses into them.
  if (checked.args !== undefined) checkBoundary(checked.args, 'The workflow args', { details: { field: 'args' } });
  if (checked.options !== undefined) checkBoundary(checked.options, 'The launch options', { details: { field: 'options' } });
  const cwd = resolve(checked.cwd);
  let source = checked.script;
  if (source === undefined) {
    const path = isAbsolute(checked.scriptPath!) ? checked.scriptPath! : resolve(cwd, checked.scriptPath!);
    try {
      source = readFileSync(path, 'utf8');
    } catch (error) {
      throw new WorkflowError('INVALID_METADATA', `Cannot read scriptPath ${path}: ${(error as Error).message}`, { path });
    }
  }
  return { ...checked, cwd, source };
}
