/**
 * The viewer's one setting: `extensionSettings.trajectory.autoAttach`
 * (boolean, default false) in the global settings file only. When true, an
 * interactive session starts the viewer as soon as one of its runs starts in
 * the background and tells the user the run's URL. A browser server is a
 * person's choice, not a project's: the validator refuses the key in a
 * project file, and it is read from the global file alone.
 */
import { compileOnFirstUse, formatAjvErrors, readGlobalSettingsFile, WorkflowError, type JsonValue, type SettingsValidationContext, type WorkflowExtension } from '../../kernel/index.js';

export const SETTINGS_NAMESPACE = 'trajectory';

const validate = compileOnFirstUse({ type: 'object', additionalProperties: false, properties: { autoAttach: { type: 'boolean' } } });

/** Registered with the workflow registry, so settings validation names the key and the file. */
export function validateTrajectorySettings(settings: Readonly<Record<string, JsonValue>>, context: SettingsValidationContext): void {
  const value = settings[SETTINGS_NAMESPACE];
  if (value === undefined) return;
  if (context.source === 'project') throw new WorkflowError('CONFIG_ERROR', `${SETTINGS_NAMESPACE} is read from the global settings file only; remove it from the project file`);
  if (!validate(value)) throw new WorkflowError('CONFIG_ERROR', `${SETTINGS_NAMESPACE} ${formatAjvErrors(validate.errors)} (allowed: { "autoAttach": boolean })`);
}

export const TRAJECTORY_EXTENSION: WorkflowExtension = Object.freeze({
  version: '1.0.0',
  headline: 'Trajectory viewer',
  validateSettings: validateTrajectorySettings,
});

/** The global file's autoAttach; false when missing, unset or invalid (launches report an invalid file). */
export function readAutoAttach(agentDir: string): boolean {
  const read = readGlobalSettingsFile(agentDir);
  if (read.state !== 'read') return false;
  const value = read.data.extensionSettings?.[SETTINGS_NAMESPACE];
  return validate(value) && (value as { autoAttach?: boolean }).autoAttach === true;
}
