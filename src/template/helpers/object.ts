/** `{{json (object id=1 name='x')}}`: an object of the hash arguments. */
import { argsOf } from '../state.js';

export function object(...args: unknown[]): Record<string, unknown> {
  // Handlebars hands the hash over in reverse order of writing.
  return Object.fromEntries(Object.entries(argsOf(args).options.hash).reverse());
}
