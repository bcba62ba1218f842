/** `{{body 'path' 'default'}}`: a value of the JSON or form-urlencoded body at a dotted path (seed). */
import { lookupAt } from '../state.js';

export const body = (...args: unknown[]): unknown => lookupAt('body', (s) => s.input.body, args);
