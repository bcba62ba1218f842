/**
 * `{{#each list}}…{{else}}…{{/each}}`: Handlebars' own `each`, counted against the render's iteration
 * budget and output limit (a template must not loop over a huge array unbounded).
 */
import { argsOf, stateOf } from '../state.js';

export function makeEach(builtIn: (...args: unknown[]) => unknown) {
  return function each(this: unknown, ...args: unknown[]): unknown {
    const { options } = argsOf(args);
    const state = stateOf(options);
    const fn = options.fn;
    if (fn) {
      options.fn = (ctx, o) => {
        state.iterate();
        return fn(ctx, o);
      };
    }
    const out = builtIn.apply(this, args);
    if (typeof out === 'string') state.checkOutput(out.length);
    return out;
  };
}
