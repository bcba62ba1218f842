/** Text helpers: `lowercase`, `uppercase`, `concat` (any number of values), `contains` (text or array). */
import { argsOf, stateOf, toText } from '../state.js';

export const lowercase = (...args: unknown[]): string => toText(argsOf(args).params[0]).toLowerCase();
export const uppercase = (...args: unknown[]): string => toText(argsOf(args).params[0]).toUpperCase();

/** Checked against the output cap before the parts are joined: a subexpression's text is never sent as such. */
export function concat(...args: unknown[]): string {
  const { params, options } = argsOf(args);
  const parts = params.map(toText);
  stateOf(options).checkOutput(parts.reduce((n, p) => n + p.length, 0));
  return parts.join('');
}

export function contains(...args: unknown[]): boolean {
  const [haystack, needle] = argsOf(args).params;
  if (Array.isArray(haystack)) return haystack.some((x) => toText(x) === toText(needle));
  return toText(haystack).includes(toText(needle));
}
