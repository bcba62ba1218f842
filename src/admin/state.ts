/**
 * Commands on an endpoint's state items (SPEC §4): seed or replace them within the state bounds,
 * delete some or all. Requests change state all the time through templates (src/state/); these are
 * the changes the API and the configuration file make, each announced as `state`.
 */
import { detail, validationError } from '../schema/index.js';
import { keyProblem, parseStateType, stateId, stateLimits, valueProblem } from '../state/index.js';
import type { EndpointRecord, Json, StateItem, StateRef, StateType } from '../store/index.js';
import { changed, type AdminDeps } from './changed.js';

type StateDeps = Pick<AdminDeps, 'config' | 'store' | 'events' | 'fence' | 'now'>;
type Limits = ReturnType<typeof stateLimits>;
export type NewStateItem = Omit<StateItem, 'lastModified'>;

function sentence(s: string): string {
  return s[0]!.toUpperCase() + s.slice(1);
}

/**
 * Validates state items as `PUT …/state` takes them (type in any letter case, key and value within
 * the bounds): 400 with every problem under `/items/<index>`.
 */
export function stateItemsOf(
  limits: Limits,
  raw: readonly { type: string; key: string; value?: unknown }[],
): NewStateItem[] {
  const details = [];
  const items: NewStateItem[] = [];
  for (const [i, r] of raw.entries()) {
    const type = parseStateType(r.type);
    if (!type) {
      details.push(detail(`/items/${i}/type`, 'A state type is counter, string or list', r.type));
      continue;
    }
    const value = (r.value === undefined ? null : r.value) as Json;
    const keyWrong = keyProblem(r.key, limits);
    const valueWrong = valueProblem(type, value, limits);
    if (keyWrong !== undefined) details.push(detail(`/items/${i}/key`, sentence(keyWrong), r.key));
    if (valueWrong !== undefined) details.push(detail(`/items/${i}/value`, sentence(valueWrong)));
    // The hosted document's counters are whole numbers from 0; a template's `dec` may still go below.
    const negative = valueWrong === undefined && type === 'counter' && (value as number) < 0;
    if (negative)
      details.push(
        detail(`/items/${i}/value`, 'A counter set through the API is a whole number from 0', value),
      );
    if (keyWrong !== undefined || valueWrong !== undefined || negative) continue;
    items.push({ type, key: r.key, value });
  }
  if (details.length > 0) throw validationError(details);
  return items;
}

/** Creates or replaces validated state items, within STATE_MAX_ITEMS (400 at `/items` past it). */
export async function putState(
  deps: StateDeps,
  ep: EndpointRecord,
  items: NewStateItem[],
): Promise<{ created: number; updated: number }> {
  if (items.length === 0) return { created: 0, updated: 0 }; // nothing to write, nothing to announce
  const limits = stateLimits(deps.config);
  // The cap counts the items this call would add to those the endpoint holds, read and written under
  // the endpoint's lock: no request on any instance adds an item in between.
  const done = await deps.store.withStateLock(ep.name, async (state) => {
    const existing = await state.read(items);
    const known = new Set(existing.items.map((i) => stateId(i.type, i.key)));
    const added = new Set(items.map((i) => stateId(i.type, i.key)).filter((id) => !known.has(id)));
    if (existing.count + added.size > limits.maxItems)
      throw validationError([
        detail(
          '/items',
          `An endpoint holds at most ${limits.maxItems} state items (it holds ${existing.count}; this adds ${added.size})`,
        ),
      ]);
    return state.putMany(items, deps.now());
  });
  // The items are written under the state lock (its own transaction, so that requests changing state
  // on any instance wait for it); the configuration version moves just after, before the answer.
  // State is read from the store by every request, never cached, so no instance reads it stale.
  const written = await deps.store.changeEndpoint(ep.name, () => Promise.resolve(done));
  await changed(deps, ep.name, 'state', written);
  return done;
}

/** Deletes the listed items, or every item when `refs` is undefined; answers how many were deleted. */
export async function deleteStateItems(
  deps: Pick<AdminDeps, 'store' | 'events' | 'fence'>,
  ep: EndpointRecord,
  refs: StateRef[] | undefined,
): Promise<number> {
  if (refs !== undefined && refs.length === 0) return 0; // nothing to delete, nothing to announce
  const written = await deps.store.changeEndpoint(ep.name, (tx) =>
    refs === undefined ? tx.deleteAllState(ep.name) : tx.deleteStateItems(ep.name, refs),
  );
  await changed(deps, ep.name, 'state', written);
  return written.result;
}

/** Deletes one item; false (and nothing announced) when the endpoint has no such item. */
export async function deleteStateItem(
  deps: Pick<AdminDeps, 'store' | 'events' | 'fence'>,
  ep: EndpointRecord,
  type: StateType,
  key: string,
): Promise<boolean> {
  const written = await deps.store.changeEndpoint(ep.name, (tx) => tx.deleteState(ep.name, type, key), {
    unchanged: (deleted) => !deleted,
  });
  if (!written.result) return false;
  await changed(deps, ep.name, 'state', written);
  return true;
}
