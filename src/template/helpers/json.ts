/** `{{{json value}}}`: a value as JSON text (`pretty=true` indents it). */
import { argsOf } from '../state.js';

export function json(...args: unknown[]): string {
  const { params, options } = argsOf(args);
  return JSON.stringify(params[0] ?? null, null, options.hash['pretty'] === true ? 2 : undefined);
}
