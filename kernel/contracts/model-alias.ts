/** Dynamic model aliases (spec 2 "WorkflowModelAlias"). */
export interface ModelAliasContext {
  readonly cwd: string;
  readonly projectTrusted: boolean;
  readonly rootModel?: string;
  readonly knownModels: readonly string[];
  readonly availableModels: readonly string[];
  readonly signal: AbortSignal;
}

export interface WorkflowModelAlias {
  resolve(context: ModelAliasContext): string | Promise<string>;
}
