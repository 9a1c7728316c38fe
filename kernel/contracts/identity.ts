/** Where an agent call sits in a run (spec 2 "AgentIdentity"). */
export interface AgentIdentity {
  readonly structuralPath: readonly string[];
  readonly callSite: string;
  readonly occurrence: number;
  readonly parentBreadcrumb?: string;
  readonly worktreeOwner?: string;
  /** Only for named-handle turns, never for their nested children. */
  readonly handle?: string;
  readonly turn?: number;
}
