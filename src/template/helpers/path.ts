/** `{{path}}`: the request path without its query string. */
import { argsOf, stateOf } from '../state.js';

export function path(...args: unknown[]): string {
  return stateOf(argsOf(args).options).input.pathname;
}
