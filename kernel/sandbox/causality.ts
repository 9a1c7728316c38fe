/**
 * Happens-before tracking for the rule "calls from one call site must not
 * race". A call may follow an earlier call of its slot (scope + site) only
 * when the earlier call's result was delivered *causally before* it: the new
 * call runs in a continuation that, through awaits, `.then` registrations and
 * promise resolutions, depends on that delivery. Then every execution orders
 * the two calls the same way, whatever the timing; otherwise their order
 * (and so their journal keys) could depend on which operation finished first.
 *
 * Each job (the script's first run, a delivery of an operation's result, a
 * promise reaction) carries a frontier: for each slot, the newest delivery in
 * its causal past. V8's promise hooks give the edges: a reaction job follows
 * the job that registered it (`init`) and the job that settled the promise it
 * reacts to (`settled`). `Promise.all`, `allSettled` and `any` join their
 * elements through hidden shared state that the hooks cannot see, so they are
 * wrapped (before lockdown) to merge their elements' frontiers explicitly.
 *
 * The same hooks carry the structural scope (parallel and pipeline branches,
 * worktree scopes) from the job that registered a continuation to the
 * continuation, as AsyncLocalStorage would; one set of hooks instead of two
 * keeps the per-promise cost low.
 */
import { promiseHooks } from 'node:v8';

/** An immutable map slot → newest delivery mark, shared structurally between jobs. */
export class Frontier {
  static readonly EMPTY = new Frontier(undefined, undefined, 0, 0, new Map());

  private readonly parent: Frontier | undefined;
  private readonly slot: string | undefined;
  private readonly mark: number;
  private readonly depth: number;
  /** A flattened root: every entry of this frontier. */
  private readonly flat: ReadonlyMap<string, number> | undefined;

  private constructor(parent: Frontier | undefined, slot: string | undefined, mark: number, depth: number, flat: ReadonlyMap<string, number> | undefined) {
    this.parent = parent;
    this.slot = slot;
    this.mark = mark;
    this.depth = depth;
    this.flat = flat;
  }

  get(slot: string): number | undefined {
    for (let node: Frontier | undefined = this; node !== undefined; node = node.parent) {
      if (node.flat !== undefined) return node.flat.get(slot);
      if (node.slot === slot) return node.mark;
    }
    return undefined;
  }

  with(slot: string, mark: number): Frontier {
    if (this.depth < 32) return new Frontier(this, slot, mark, this.depth + 1, undefined);
    const entries = this.entries();
    entries.set(slot, mark);
    return new Frontier(undefined, undefined, 0, 0, entries);
  }

  private entries(): Map<string, number> {
    const chain: Frontier[] = [];
    let node: Frontier | undefined = this;
    while (node.flat === undefined) {
      chain.push(node);
      node = node.parent!;
    }
    const entries = new Map(node.flat);
    for (let index = chain.length - 1; index >= 0; index -= 1) entries.set(chain[index]!.slot!, chain[index]!.mark);
    return entries;
  }

  /** Whether `this` extends `other` (so already contains all of it). */
  private extends(other: Frontier): boolean {
    for (let node: Frontier | undefined = this; node !== undefined; node = node.parent) {
      if (node === other) return true;
      if (node.depth < other.depth) return false;
    }
    return false;
  }

  static merge(a: Frontier, b: Frontier): Frontier {
    if (a === b || b === Frontier.EMPTY || a.extends(b)) return a;
    if (a === Frontier.EMPTY || b.extends(a)) return b;
    const merged = a.entries();
    for (const [slot, mark] of b.entries()) if (mark > (merged.get(slot) ?? -1)) merged.set(slot, mark);
    return new Frontier(undefined, undefined, 0, 0, merged);
  }
}

export type Scope = readonly string[];

interface Link {
  readonly registered: Frontier;
  readonly scope: Scope;
  readonly parent: Promise<unknown> | undefined;
}

const ROOT: Scope = Object.freeze([]);

/** The frontier and scope of the job running now; EMPTY and the root between jobs. */
let current = Frontier.EMPTY;
let scope: Scope = ROOT;
const saved: { readonly frontier: Frontier; readonly scope: Scope }[] = [];
const links = new WeakMap<Promise<unknown>, Link>();
const settledAt = new WeakMap<Promise<unknown>, Frontier>();

export function currentFrontier(): Frontier {
  return current;
}

export function currentScope(): Scope {
  return scope;
}

/** Runs `fn` in `inner`: it and every continuation it registers see that scope. */
export function runInScope<T>(inner: Scope, fn: () => T): T {
  const outer = scope;
  scope = inner;
  try {
    return fn();
  } finally {
    scope = outer;
  }
}

/** Runs `fn` as a job of its own with frontier `frontier` (a delivery of a result). */
export function runAsJob<T>(frontier: Frontier, fn: () => T): T {
  const outer = current;
  current = frontier;
  try {
    return fn();
  } finally {
    current = outer;
  }
}

/** Adds the frontiers a join waited for to the current job. */
function join(frontiers: readonly Frontier[]): void {
  for (const frontier of frontiers) current = Frontier.merge(current, frontier);
}

export function startTracking(): void {
  promiseHooks.createHook({
    init(promise, parent) {
      if (current !== Frontier.EMPTY || scope !== ROOT || parent !== undefined) links.set(promise, { registered: current, scope, parent });
    },
    settled(promise) {
      if (current !== Frontier.EMPTY) settledAt.set(promise, current);
    },
    before(promise) {
      saved.push({ frontier: current, scope });
      const link = links.get(promise);
      if (link === undefined) {
        current = Frontier.EMPTY;
        scope = ROOT;
        return;
      }
      const resolved = link.parent === undefined ? undefined : settledAt.get(link.parent);
      current = resolved === undefined ? link.registered : Frontier.merge(link.registered, resolved);
      scope = link.scope;
    },
    after() {
      const outer = saved.pop();
      current = outer?.frontier ?? Frontier.EMPTY;
      scope = outer?.scope ?? ROOT;
    },
  });
}

type Combinator = (this: PromiseConstructor, iterable: Iterable<unknown>) => Promise<unknown>;

/**
 * Wraps the joining combinators; must run before `lockdown()` freezes
 * `Promise`. `all` joins when every element fulfilled, `allSettled` always,
 * `any` when every element rejected; the other outcomes follow one element,
 * which the promise hooks already see.
 */
export function wrapJoins(): void {
  const wrap = (name: 'all' | 'allSettled' | 'any', joinOn: 'fulfilled' | 'rejected' | 'both'): void => {
    const original = Promise[name] as Combinator;
    const replacement = {
      [name](this: PromiseConstructor, iterable: Iterable<unknown>): Promise<unknown> {
        if (typeof this !== 'function') return original.call(this, iterable);
        const seen: Frontier[] = [];
        let tracked: Promise<unknown>[];
        try {
          tracked = Array.from(iterable, (item) =>
            this.resolve(item).then(
              (value) => (seen.push(current), value),
              (error: unknown) => {
                seen.push(current);
                throw error;
              },
            ),
          );
        } catch (error) {
          return this.reject(error);
        }
        return original.call(this, tracked).then(
          (value) => {
            if (joinOn !== 'rejected') join(seen);
            return value;
          },
          (error: unknown) => {
            if (joinOn !== 'fulfilled') join(seen);
            throw error;
          },
        );
      },
    }[name] as Combinator;
    Object.defineProperty(Promise, name, { value: replacement, writable: true, configurable: true, enumerable: false });
  };
  wrap('all', 'fulfilled');
  wrap('allSettled', 'both');
  wrap('any', 'rejected');
}
