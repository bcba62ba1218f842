/**
 * `{{#repeat 3}}…{{/repeat}}` renders its block 3 times; `{{#repeat 2 5}}` a random count between the two;
 * `separator=','` goes between; `@index`, `@first`, `@last` inside. Bounded by the render's iteration budget.
 */
import { argsOf, stateOf } from '../state.js';

export function repeat(...args: unknown[]): string {
  const { params, options } = argsOf(args);
  const state = stateOf(options);
  const lo = Number(params[0]);
  const hi = params.length > 1 ? Number(params[1]) : lo;
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo < 0 || hi < lo) {
    state.problem('repeat: give a count, or a minimum and a maximum, e.g. {{#repeat 3}} or {{#repeat 1 5}}');
    return '';
  }
  const count = Math.floor(lo + Math.random() * (Math.floor(hi) - Math.floor(lo) + 1));
  const separator = typeof options.hash['separator'] === 'string' ? options.hash['separator'] : '';
  let out = '';
  for (let i = 0; i < count; i++) {
    state.iterate();
    const data = { ...options.data, index: i, first: i === 0, last: i === count - 1 };
    out += (i > 0 ? separator : '') + (options.fn?.({}, { data }) ?? '');
    state.checkOutput(out.length);
  }
  return out;
}
