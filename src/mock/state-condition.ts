/**
 * The `state` rule condition (SPEC §4): the endpoint's counter, string or list named by `key`,
 * compared with `value`. The items a rule set names are read before matching (rules-step.ts) and
 * reach the predicate through the RequestView; a rule set without state conditions reads nothing.
 *   counter  a whole number, 0 when absent; every operator compares numbers (contains: as text)
 *   string   absent matches only not_equals, not_contains and not_exists; equals/contains compare the
 *            text (an object as JSON); greater_than… compare numbers when both are numbers, else fail
 *   list     empty when absent; contains/not_contains look for an element equal to `value` (as
 *            text); every other comparison compares the list's length with `value`
 * `gt`, `lt`, `gte`, `lte` are `greater_than`, `less_than`, `greater_than_equal`, `less_than_equal`.
 */
import type { Json } from '../store/index.js';
import { stateId } from '../state/index.js';
import type { Condition } from './rule-model.js';

type StateCondition = Extract<Condition, { type: 'state' }>;

/** The values of the items a request's rules name, by stateId. */
export type StateValues = ReadonlyMap<string, Json>;

const ALIASES: Readonly<Record<string, string>> = {
  gt: 'greater_than',
  lt: 'less_than',
  gte: 'greater_than_equal',
  lte: 'less_than_equal',
};

function asText(v: Json): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function compareNumbers(op: string, a: number, b: number): boolean {
  switch (op) {
    case 'equals':
      return a === b;
    case 'not_equals':
      return a !== b;
    case 'greater_than':
      return a > b;
    case 'less_than':
      return a < b;
    case 'greater_than_equal':
      return a >= b;
    case 'less_than_equal':
      return a <= b;
    default:
      return false;
  }
}

function numberOf(s: string): number | undefined {
  if (s.trim() === '') return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

/** Whether the condition holds for the item's value (undefined: the item does not exist). */
export function stateHolds(c: StateCondition, v: Json | undefined): boolean {
  const op = ALIASES[c.operator] ?? c.operator;
  const value = c.value ?? '';
  if (op === 'exists') return v !== undefined;
  if (op === 'not_exists') return v === undefined;
  switch (c.stateType) {
    case 'counter': {
      const n = typeof v === 'number' ? v : 0;
      if (op === 'contains') return String(n).includes(value);
      if (op === 'not_contains') return !String(n).includes(value);
      const want = numberOf(value);
      return want !== undefined && compareNumbers(op, n, want);
    }
    case 'string': {
      if (op === 'not_equals' || op === 'not_contains')
        return (
          v === undefined || !stateHolds({ ...c, operator: op === 'not_equals' ? 'equals' : 'contains' }, v)
        );
      if (v === undefined) return false;
      const text = asText(v);
      if (op === 'equals') return text === value;
      if (op === 'contains') return text.includes(value);
      const a = numberOf(text);
      const b = numberOf(value);
      return a !== undefined && b !== undefined && compareNumbers(op, a, b);
    }
    case 'list': {
      const list = Array.isArray(v) ? v : [];
      if (op === 'contains') return list.some((e) => asText(e) === value);
      if (op === 'not_contains') return !list.some((e) => asText(e) === value);
      const want = numberOf(value);
      return want !== undefined && compareNumbers(op, list.length, want);
    }
  }
  return false;
}

/** The predicate of a state condition over the values read for the request. */
export function compileStateCondition(c: StateCondition): (state: StateValues | undefined) => boolean {
  const id = stateId(c.stateType, c.key);
  return (state) => stateHolds(c, state?.get(id));
}
