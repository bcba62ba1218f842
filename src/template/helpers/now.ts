/**
 * `{{now}}` (ISO 8601 UTC), `{{now 'iso'}}`, `{{now 'utc'}}` (RFC 7231 date), `{{now 'epoch'}}` (seconds),
 * `{{now 'ms'}}`; an offset as second argument or `offset=`: `{{now 'iso' '+1d'}}`, `{{now offset='-2h'}}`
 * (units s, m, h, d).
 */
import { argsOf, stateOf, toText } from '../state.js';

const UNIT = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export function now(...args: unknown[]): string {
  const { params, options } = argsOf(args);
  const state = stateOf(options);
  const format = typeof params[0] === 'string' ? params[0] : 'iso';
  const raw = params[1] ?? options.hash['offset'];
  const offset = raw === undefined ? undefined : toText(raw);
  let t = state.input.now;
  if (offset !== undefined) {
    const m = /^([+-]?\d{1,9})([smhd])$/.exec(offset);
    if (m) t += Number(m[1]) * UNIT[m[2] as keyof typeof UNIT];
    else state.problem(`now: the offset "${offset}" is not a number and a unit (s, m, h, d)`);
  }
  const d = new Date(t);
  switch (format) {
    case 'utc':
      return d.toUTCString();
    case 'epoch':
      return String(Math.floor(t / 1000));
    case 'ms':
      return String(t);
    case 'iso':
      return d.toISOString();
    default:
      state.problem(`now: unknown format "${format}" (iso, utc, epoch, ms)`);
      return d.toISOString();
  }
}
