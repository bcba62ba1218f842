/** `{{pathParam 'name' 'default'}}`: a parameter of the rule's path template or a regex named group. */
import { argsOf, stateOf, toText } from '../state.js';

export function pathParam(...args: unknown[]): string {
  const { params, options } = argsOf(args);
  const [name, fallback = ''] = params;
  const p = stateOf(options).input.pathParams;
  const key = String(name);
  return Object.hasOwn(p, key) ? p[key]! : toText(fallback);
}
