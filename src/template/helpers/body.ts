/** `{{body 'path' 'default'}}`: a value of the JSON or form-urlencoded body at a dotted path (seed). */
import { argsOf, asValue, stateOf, toText, valueAtPath } from '../state.js';

export function body(...args: unknown[]): unknown {
  const { params, options } = argsOf(args);
  const [path, fallback = ''] = params;
  if (typeof path !== 'string' || path === '') {
    stateOf(options).problem("body: the first argument is a dotted path, e.g. {{body 'user.name'}}");
    return toText(fallback);
  }
  const v = valueAtPath(stateOf(options).input.body, path);
  return v === undefined ? toText(fallback) : asValue(v);
}
