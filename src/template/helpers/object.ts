/** `{{json (object id=1 name='x')}}`: an object of the hash arguments. */
import { argsOf } from '../state.js';

export function object(...args: unknown[]): Record<string, unknown> {
  return { ...argsOf(args).options.hash };
}
