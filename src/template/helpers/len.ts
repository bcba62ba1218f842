/** `{{len value}}`: the length of a string or an array, the number of keys of an object. */
import { argsOf } from '../state.js';

export function len(...args: unknown[]): number {
  const v = argsOf(args).params[0];
  if (typeof v === 'string' || Array.isArray(v)) return v.length;
  if (v !== null && typeof v === 'object') return Object.keys(v).length;
  return 0;
}
