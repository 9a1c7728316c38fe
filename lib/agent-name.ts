/**
 * An agent's name for a person (issue 37 item 9): its label, or `agent at
 * line:col` when it has none, then, briefly, where in the script it ran when
 * that tells two agents apart (`reviewer (parallel reviews/b)`). An agent's
 * ID (`parallel:reviews/b|2:120#0`) is a journal key, not a name: it stays in
 * `--json` output and in what a user copies, never as the name shown.
 */

/** What naming needs of an agent summary (kernel `AgentSummary`, the trajectory model's agents). */
export interface NamedAgent {
  readonly id: string;
  readonly label: string;
  readonly path?: readonly string[];
  readonly breadcrumb?: readonly string[];
}

/** The label the engine gives an agent nobody labelled and whose model is not known yet (engine PENDING_LABEL). */
const NO_LABEL = 'agent';
/** A call site of the script: `line:col`. */
const SITE = /^\d+:\d+$/;

/** The call site and occurrence of a script-level agent ID (`<scope>|<line:col>#<n>`); undefined for other IDs (a spawned child's). */
export function agentCallSite(id: string): { site: string; occurrence: number } | undefined {
  const bar = id.lastIndexOf('|');
  const hash = id.lastIndexOf('#');
  if (bar < 0 || hash < bar) return undefined;
  const site = id.slice(bar + 1, hash);
  const occurrence = Number(id.slice(hash + 1));
  return SITE.test(site) && Number.isSafeInteger(occurrence) && occurrence >= 0 ? { site, occurrence } : undefined;
}

/** A scope segment as a person reads it: `parallel:reviews/b` is `parallel reviews/b`, a registered function's `fn:review` is `review`. */
function segmentText(segment: string): string {
  const colon = segment.indexOf(':');
  if (colon < 0) return segment;
  const kind = segment.slice(0, colon);
  const rest = segment.slice(colon + 1);
  return kind === 'fn' ? rest : `${kind} ${rest}`;
}

/**
 * `label`, or `agent at line:col`; with `where` (the default) the structural
 * place follows in parentheses: function breadcrumbs, parallel and pipeline
 * branches, and `call N` for a repeated call from one site.
 */
export function agentName(agent: NamedAgent, options: { readonly where?: boolean } = {}): string {
  const call = agentCallSite(agent.id);
  const label = agent.label.trim();
  const base = label !== '' && label !== NO_LABEL ? label : call === undefined ? NO_LABEL : `agent at ${call.site}`;
  if (options.where === false) return base;
  const breadcrumb = agent.breadcrumb ?? [];
  // Breadcrumbs already name the registered functions the path's `fn:` segments stand for.
  const path = (agent.path ?? []).filter((segment) => breadcrumb.length === 0 || !segment.startsWith('fn:')).map(segmentText);
  const where = [...breadcrumb, ...path].join(' / ');
  const parts = [where, call !== undefined && call.occurrence > 0 ? `call ${call.occurrence + 1}` : ''].filter((part) => part !== '');
  return parts.length === 0 ? base : `${base} (${parts.join(', ')})`;
}
