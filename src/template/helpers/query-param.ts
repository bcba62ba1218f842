/** `{{queryParam 'path' 'default'}}`: a query parameter, dotted paths into repeated keys (`id.1`) (seed). */
import { argsOf, asValue, stateOf, toText, valueAtPath } from '../state.js';

export function queryParam(...args: unknown[]): unknown {
  const { params, options } = argsOf(args);
  const [path, fallback = ''] = params;
  if (typeof path !== 'string' || path === '') {
    stateOf(options).problem('queryParam: the first argument is a parameter name or dotted path');
    return toText(fallback);
  }
  const v = valueAtPath(stateOf(options).input.query, path);
  return v === undefined ? toText(fallback) : asValue(v);
}
