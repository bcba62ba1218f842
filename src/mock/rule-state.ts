/**
 * Endpoint state on the rules step (SPEC §4 `state` conditions, §6 state helpers).
 *
 * Conditions: the items the rules' `state` conditions name are read in one query before matching;
 * an endpoint whose rules have no state condition reads nothing (no await on that path).
 *
 * Templates: a Handlebars render is synchronous, so the state a rule's templates use is read before
 * the rule's action runs, under the endpoint's lock (state/lock.ts): the items the templates name
 * (state-refs.ts), or the whole state when a name is computed. The action renders its templates at
 * once, before its first wait (a `delay` comes after the render), against that snapshot (a
 * StateSession); the changes the render made are then stored in one transaction, each as one atomic
 * statement, and the lock is let go, before any delay. A rule without state helpers takes none of this.
 * A template rendered after that moment (none is today) finds no state and notes so.
 *
 * The lock is two: this instance's (at most one request of an endpoint at a time goes on, so a
 * thousand waiting requests hold no database connection) and, for templates that may change the
 * state, the store's (Store.withStateLock: on PostgreSQL shared by several instances, the read, the
 * render and the changes are one transaction under the endpoint's advisory lock, so that requests
 * spread over instances each see a value no other request saw; elsewhere it adds nothing). Templates
 * that only read take this instance's lock alone.
 */
import type { Exchange, Outcome } from '../endpoint/index.js';
import type { Json, LockedState, Store } from '../store/index.js';
import { stateId, StateSession, type StateLimits, type StateLock } from '../state/index.js';
import type { StateUse } from '../template/index.js';
import type { CompiledRules } from './matcher.js';
import type { StateValues } from './state-condition.js';

const sessions = new WeakMap<Exchange, StateSession>();

/** The state session of the exchange's action while its templates may render, if any. */
export function sessionOf(x: Exchange): StateSession | undefined {
  return sessions.get(x);
}

/** The values the rules' state conditions need, or undefined when they name none. */
export async function conditionState(
  store: Store,
  endpoint: string,
  matcher: CompiledRules,
): Promise<StateValues | undefined> {
  if (matcher.stateRefs.length === 0) return undefined;
  const { items } = await store.readState(endpoint, matcher.stateRefs);
  const values = new Map<string, Json>();
  for (const i of items) values.set(stateId(i.type, i.key), i.value);
  return values;
}

/** What a rule's templates use of the state, merged over all of them. */
export function mergeStateUse(uses: readonly StateUse[]): StateUse | undefined {
  if (uses.length === 0) return undefined;
  const merged: StateUse = { refs: uses.flatMap((u) => u.refs), dynamic: uses.some((u) => u.dynamic) };
  if (uses.every((u) => u.readOnly)) merged.readOnly = true;
  return merged;
}

export interface StateRun {
  store: Store;
  lock: StateLock;
  limits: StateLimits;
  now: () => number;
}

/** Runs a rule's action whose templates use state: read, render, store, all under the endpoint's locks. */
export async function runWithState(
  s: StateRun,
  x: Exchange,
  use: StateUse,
  action: () => Promise<Outcome | undefined> | Outcome | undefined,
): Promise<Outcome | undefined> {
  const endpoint = x.endpoint.record.name;
  let pending: Promise<Outcome | undefined> | undefined;
  const render = async (state: Pick<LockedState, 'read' | 'apply'>): Promise<void> => {
    const snapshot = await state.read(use.dynamic ? 'all' : use.refs);
    const session = new StateSession(snapshot, s.limits);
    sessions.set(x, session);
    try {
      pending = Promise.resolve(action());
    } finally {
      sessions.delete(x);
    }
    // Handled here, awaited below: a failing action must not count as unhandled while the state is stored.
    pending.catch(() => undefined);
    if (!session.failed) await state.apply(session.ops, s.now());
  };
  await s.lock.run(endpoint, () =>
    use.readOnly
      ? render({
          read: (refs) => s.store.readState(endpoint, refs),
          apply: (ops, now) => s.store.applyState(endpoint, ops, now),
        })
      : s.store.withStateLock(endpoint, render),
  );
  return pending;
}
