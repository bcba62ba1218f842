/** `{{header 'name' 'default'}}`: a request header, by case-insensitive name. */
import { argsOf, stateOf, toText } from '../state.js';

export function header(...args: unknown[]): string {
  const { params, options } = argsOf(args);
  const [name, fallback = ''] = params;
  const headers = stateOf(options).input.headers;
  const key = String(name).toLowerCase();
  return Object.hasOwn(headers, key) ? headers[key]! : toText(fallback);
}
