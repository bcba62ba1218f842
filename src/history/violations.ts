/**
 * Contract violations as the history keeps them (SPEC §7): a request that breaks an OpenAPI document
 * in a thousand places must not cost a thousand rows' worth of memory in the writer's queue, on disk,
 * in every list page and in every live event. The engine's lists are cut here, once, before the entry
 * exists; everything downstream (store, API, events, HAR) carries what this leaves.
 */
import type { ContractViolation } from '../store/index.js';

/** The most violations an entry keeps per list (request, response), the note of the rest included. */
export const MAX_VIOLATIONS = 20;
/** The longest message kept, in UTF-16 units; a longer one ends in `…`. */
export const MAX_VIOLATION_MESSAGE = 300;
/** The longest `in` and `path` kept (a JSON pointer into a deep body can be long). */
export const MAX_VIOLATION_PATH = 200;

/** `in` of the last item of a list that was cut: its message says how many were left out. */
export const VIOLATIONS_TRUNCATED = 'truncated';

function clip(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 1) + '…';
}

/**
 * `list` bounded: at most MAX_VIOLATIONS items, each field clipped. A longer list keeps its first
 * MAX_VIOLATIONS − 1 items and ends with `{ in: 'truncated', path: '', message: 'N more violations
 * not kept' }`, so that a reader knows the list is not whole and the total stays MAX_VIOLATIONS.
 * An empty list stays empty: it means the request kept the contract.
 */
export function capViolations(list: readonly ContractViolation[]): ContractViolation[] {
  const keep = list.length > MAX_VIOLATIONS ? MAX_VIOLATIONS - 1 : list.length;
  const out: ContractViolation[] = [];
  for (let i = 0; i < keep; i++) {
    const v = list[i]!;
    out.push({
      in: clip(String(v.in), MAX_VIOLATION_PATH),
      path: clip(String(v.path), MAX_VIOLATION_PATH),
      message: clip(String(v.message), MAX_VIOLATION_MESSAGE),
    });
  }
  if (keep < list.length) {
    out.push({
      in: VIOLATIONS_TRUNCATED,
      path: '',
      message: `${list.length - keep} more violations not kept`,
    });
  }
  return out;
}
