/**
 * `/workflow <name>` subcommands that plugins handle (spec 1 "/workflow
 * command" rule 6: `/workflow trajectory` stays when its plugin is left out
 * and then reports that it is disabled). The host asks the kernel which
 * subcommands the loaded plugins claim and reports what `run` returns, so
 * the host never imports a plugin.
 */
import type { WorkflowEngineApi } from './engine-api.js';

export interface SubcommandInput {
  /** What follows the subcommand's name, trimmed. */
  readonly args: string;
  /** The engine of the host session the command runs in. */
  readonly engine: WorkflowEngineApi;
  /** The launch project directory (the host's cwd). */
  readonly cwd: string;
  /**
   * The host draws a UI and stays running (an interactive terminal, an RPC
   * client); false in print and JSON mode, whose process ends with the prompt.
   */
  readonly interactive: boolean;
}

export interface SubcommandReport {
  readonly text: string;
  readonly level: 'info' | 'error';
}

export interface WorkflowSubcommand {
  /** The word after `/workflow`: lower-case letters, digits and `-`. */
  readonly name: string;
  readonly description: string;
  run(input: SubcommandInput): Promise<SubcommandReport>;
}

/** What a plugin learns when an engine is built on its kernel (a host session's, wfcli's, a test's). */
export interface EngineInput {
  readonly engine: WorkflowEngineApi;
  /** Runs after the engine closed (its executing runs interrupted); awaited by `engine.close()`, errors ignored. */
  onClose(listener: () => void | Promise<void>): void;
}
