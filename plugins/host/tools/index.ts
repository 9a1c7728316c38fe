/**
 * The workflow tools (spec 1 "Tools"): their specs, and registration into one
 * Pi extension runtime. `codemodeTools` is fixed at registration: Pi registers
 * tools when it loads extensions, so a changed setting applies after `/reload`.
 */
import type { ExtensionAPI } from '@earendil-works/pi-coding-agent';
import type { TSchema } from 'typebox';
import { DEFAULT_SETTINGS, type CodemodeTools } from '../../../kernel/index.js';
import type { HostSession } from '../host-session.js';
import { catalogTool } from './catalog.js';
import { defineWorkflowTool, ToolErrors, type WorkflowToolDefinition, type WorkflowToolSpec } from './define.js';
import { respondTool } from './respond.js';
import { resumeTool, retryTool } from './resume.js';
import { statusTool, stopTool } from './status.js';
import { workflowTool } from './workflow.js';

export class WorkflowTools {
  readonly #pi: ExtensionAPI;
  readonly #host: () => HostSession | undefined;
  readonly #errors = new ToolErrors();
  readonly #codemodeTools: CodemodeTools;

  constructor(pi: ExtensionAPI, host: () => HostSession | undefined, options: { readonly codemodeTools?: CodemodeTools } = {}) {
    this.#pi = pi;
    this.#host = host;
    this.#codemodeTools = options.codemodeTools ?? DEFAULT_SETTINGS.codemodeTools;
    this.#errors.install(pi);
  }

  define<P extends TSchema>(spec: WorkflowToolSpec<P>): WorkflowToolDefinition {
    return defineWorkflowTool(spec, this.#host, this.#errors, this.#codemodeTools);
  }

  /** Every tool but `workflow_catalog`, which is registered at session start when there is something to list. */
  registerCore(): void {
    for (const tool of [this.define(workflowTool), this.define(statusTool), this.define(resumeTool), this.define(retryTool), this.define(respondTool), this.define(stopTool)]) {
      this.#pi.registerTool(tool);
    }
  }

  registerCatalog(): void {
    this.#pi.registerTool(this.define(catalogTool));
  }
}

export { ERROR_OUTPUT } from './schemas.js';
export type { ToolCall, WorkflowToolDefinition, WorkflowToolSpec } from './define.js';
export { hostToolFields, readsStructuredResults, structuredError, structuredResult, type HostToolAnnotations, type HostToolExposure, type HostToolFields } from './native.js';
export { catalogTool, respondTool, resumeTool, retryTool, statusTool, stopTool, workflowTool };
