/** What an execution segment is given and how it can end; the script globals it hands the sandbox. */
import type { JsonValue } from '../json.js';
import type { WorkflowError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { WorkflowRegistryApi } from '../registry/index.js';
import type { PrimitiveDefinition } from '../contracts/primitive.js';
import type { SandboxPool } from '../sandbox/pool.js';
import type { GlobalSpec } from '../sandbox/protocol.js';
import type { JournalRecord } from './journal-record.js';
import type { Slots } from './scheduler.js';
import type { Segment } from './segment.js';

export interface ExecutionEnv {
  readonly kernel: Kernel;
  readonly pool: SandboxPool;
  readonly registry: WorkflowRegistryApi;
  readonly primitives: ReadonlyMap<string, PrimitiveDefinition>;
  readonly agentDir: string;
  readonly projectTrusted: boolean;
  readonly extensionSettings: Readonly<Record<string, JsonValue>>;
  readonly siteGlobal: string;
  readonly segment: Segment;
  /** Per-run active-agent limit (1 to 16). */
  readonly concurrency: number;
  /** The session-wide active-agent ceiling. */
  readonly agentSlots: Slots;
  /** Reports a failure nothing else can report (a state that could not be saved). */
  readonly warn?: (error: WorkflowError) => void;
}

/** The host-performed core primitives; `prompt`, `parallel`, `pipeline` and `args` live in the sandbox. */
const CORE_GLOBALS: readonly GlobalSpec[] = [
  { name: 'agent', kind: 'agent' },
  { name: 'shell', kind: 'effect' },
  { name: 'phase', kind: 'notify' },
  { name: 'log', kind: 'notify' },
];

export type SegmentOutcome = 'completed' | 'failed' | 'budget_exhausted' | 'stopped' | 'paused' | 'interrupted';

export type RecordBody = JournalRecord extends infer R ? (R extends JournalRecord ? Omit<R, 'v' | 'key' | 'at'> : never) : never;

/** Every global the sandbox exposes to the script besides its own (`prompt`, `parallel`, `pipeline`, `args`). */
export function scriptGlobals(registry: WorkflowRegistryApi, primitives: ReadonlyMap<string, PrimitiveDefinition>): GlobalSpec[] {
  return [
    ...CORE_GLOBALS,
    ...[...registry.functions().keys()].map((name): GlobalSpec => ({ name, kind: 'function' })),
    ...[...primitives.values()].map((primitive): GlobalSpec => ({ name: primitive.name, kind: primitive.kind })),
  ];
}
