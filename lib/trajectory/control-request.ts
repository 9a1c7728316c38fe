/**
 * A control request of the run page (`POST /<token>/api/runs/<id>/actions`):
 * its JSON body names an action and, for a checkpoint decision, the
 * checkpoint. Validated with ajv here for both viewers, so a bad body is
 * refused the same way whichever viewer got it.
 */
import { WorkflowError, messageOf } from '../../kernel/errors.js';
import { compileOnFirstUse, formatAjvErrors } from '../../kernel/json-schema.js';
import type { ControlAction } from './model.js';

export interface ControlRequest {
  readonly action: ControlAction;
  readonly checkpoint?: string;
}

export const validateControlRequest = compileOnFirstUse<ControlRequest>({
  type: 'object',
  additionalProperties: false,
  required: ['action'],
  properties: {
    action: { enum: ['pause', 'cancel-pause', 'resume', 'stop', 'approve', 'reject'] },
    checkpoint: { type: 'string', minLength: 1, maxLength: 200 },
  },
});

/** Parses a request body; a bad one is a WorkflowError naming what is wrong. */
export function parseControlRequest(body: string): ControlRequest {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new WorkflowError('INVALID_METADATA', `the control request is not JSON: ${messageOf(error)}`);
  }
  if (!validateControlRequest(value)) throw new WorkflowError('INVALID_METADATA', `the control request ${formatAjvErrors(validateControlRequest.errors)}`);
  if ((value.action === 'approve' || value.action === 'reject') !== (value.checkpoint !== undefined)) {
    throw new WorkflowError('INVALID_METADATA', 'a checkpoint name goes with approve and reject, and only with them');
  }
  return value;
}
