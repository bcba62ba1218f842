/** `{{cookie 'name' 'default'}}`: a cookie of the request's Cookie header. */
import { argsOf, stateOf, toText } from '../state.js';

export function cookie(...args: unknown[]): string {
  const { params, options } = argsOf(args);
  const [name, fallback = ''] = params;
  const raw = stateOf(options).input.headers['cookie'] ?? '';
  for (const part of raw.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === String(name)) return part.slice(eq + 1).trim();
  }
  return toText(fallback);
}
