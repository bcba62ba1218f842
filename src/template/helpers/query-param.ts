/** `{{queryParam 'path' 'default'}}`: a query parameter, dotted paths into repeated keys (`id.1`) (seed). */
import { lookupAt } from '../state.js';

export const queryParam = (...args: unknown[]): unknown => lookupAt('queryParam', (s) => s.input.query, args);
