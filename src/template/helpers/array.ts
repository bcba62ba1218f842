/** `{{json (array 'a' 'b')}}`: an array of the arguments. */
import { argsOf } from '../state.js';

export function array(...args: unknown[]): unknown[] {
  return argsOf(args).params;
}
