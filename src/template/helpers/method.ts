/** `{{method}}`: the request method. */
import { argsOf, stateOf } from '../state.js';

export function method(...args: unknown[]): string {
  return stateOf(argsOf(args).options).input.method;
}
