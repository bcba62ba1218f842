/** Text helpers: `lowercase`, `uppercase`, `concat` (any number of values), `contains` (text or array). */
import { argsOf, toText } from '../state.js';

export const lowercase = (...args: unknown[]): string => toText(argsOf(args).params[0]).toLowerCase();
export const uppercase = (...args: unknown[]): string => toText(argsOf(args).params[0]).toUpperCase();
export const concat = (...args: unknown[]): string => argsOf(args).params.map(toText).join('');
export function contains(...args: unknown[]): boolean {
  const [haystack, needle] = argsOf(args).params;
  if (Array.isArray(haystack)) return haystack.some((x) => toText(x) === toText(needle));
  return toText(haystack).includes(toText(needle));
}
