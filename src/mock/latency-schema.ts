/**
 * The schemas of a response's latency and faults, shared by rule actions (rule-schema.ts) and endpoint
 * settings (settings.ts): `delay` as milliseconds or as a distribution with a cap, `chunked` (the body
 * dribbled), and `fault`. Every wait is at most MAX_DELAY_MS, so no shape can hold a socket longer.
 */
import { Type, type Static } from '@sinclair/typebox';
import { FAULTS } from '../http/index.js';
import { StringEnum } from '../schema/index.js';

/** Longest delay a response may have (and the cap of every distribution), in milliseconds. */
export const MAX_DELAY_MS = 600_000;
/** Most chunks a dribbled body is cut into (each is one write and one timer). */
export const MAX_DRIBBLE_CHUNKS = 1000;

const Ms = (description: string) => Type.Number({ minimum: 0, maximum: MAX_DELAY_MS, description });

/** A fault written instead of the answer (http/answer.ts `FAULTS`). */
export const FaultName = StringEnum(FAULTS, {
  description:
    '`connection_reset`, `empty_response`, `malformed_chunk`, `random_data_then_close`, or `timeout` ' +
    '(nothing is sent until the client gives up or FAULT_TIMEOUT_MAX passes)',
});

/** A delay drawn per request from a distribution; every draw is cut at `max`. */
export const DelayDistribution = Type.Union(
  [
    Type.Object(
      { distribution: Type.Literal('fixed'), value: Ms('the delay, ms') },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        distribution: Type.Literal('uniform'),
        min: Ms('the shortest delay, ms'),
        max: Ms('the longest delay, ms (at least min)'),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        distribution: Type.Literal('lognormal'),
        median: Ms('the median delay, ms'),
        sigma: Type.Number({
          minimum: 0,
          maximum: 10,
          description: 'the standard deviation of the delay’s natural logarithm (0.1 tight, 1 wide)',
        }),
        max: Type.Optional(Ms('the cap: a longer draw waits this long (default and most: 600000)')),
      },
      { additionalProperties: false },
    ),
  ],
  { discriminator: { propertyName: 'distribution' } },
);

const delayMembers = [
  Type.Number({
    minimum: 0,
    maximum: MAX_DELAY_MS,
    description: 'milliseconds; a fraction is kept as sent and rounded to whole milliseconds when used',
  }),
  DelayDistribution,
];

/** Milliseconds as a number (a fraction is rounded when used), or a distribution; no default. */
export const DelayValue = Type.Union(delayMembers);

/** A rule response's `delay`: a DelayValue, 0 when left out. */
export const DelaySpec = Type.Union(delayMembers, { default: 0 });

/** The body written in `chunks` pieces, the last `totalDuration` ms after the head. */
export const ChunkedSpec = Type.Object(
  {
    chunks: Type.Integer({ minimum: 1, maximum: MAX_DRIBBLE_CHUNKS }),
    totalDuration: Ms('ms from the head to the last chunk'),
  },
  { additionalProperties: false, description: 'dribble the body: `chunks` pieces over `totalDuration` ms' },
);

export type DelaySpec = Static<typeof DelaySpec>;
export type DelayDistribution = Static<typeof DelayDistribution>;
export type ChunkedSpec = Static<typeof ChunkedSpec>;
