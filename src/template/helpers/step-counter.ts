/**
 * `{{step-counter 'inc|dec|get|reset' 'name' [by]}}`: the endpoint's counter `name` (0 until first
 * changed). `inc` and `dec` change it by `by` (default 1) and give the new value; `reset` sets it to
 * `by` (default 0); `get` reads it. Persistent, shared by every request to the endpoint.
 */
import { argsOf, stateOf } from '../state.js';
import { stateOfRender, stateKey } from './state-access.js';

export function stepCounter(...args: unknown[]): number | string {
  const { params, options } = argsOf(args);
  const [op, name, by] = params;
  const state = stateOfRender(stateOf(options), 'step-counter');
  const key = stateKey(name, 'step-counter');
  const amount = by === undefined ? undefined : Number(by);
  if (amount !== undefined && !Number.isSafeInteger(amount))
    throw new Error(`the amount is a whole number, got "${String(by)}"`);
  switch (op) {
    case 'inc':
      return state.add(key, amount ?? 1);
    case 'dec':
      return state.add(key, -(amount ?? 1));
    case 'get': {
      const v = state.read('counter', key);
      return typeof v === 'number' ? v : 0;
    }
    case 'reset':
      return state.resetCounter(key, amount ?? 0);
    default:
      throw new Error(`the operation is inc, dec, get or reset, e.g. {{step-counter 'inc' 'visits'}}`);
  }
}
