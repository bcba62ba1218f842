/**
 * The mock-rule schemas (SPEC §4): TypeBox schemas for conditions, actions and rules, their bounds,
 * and the TypeScript types they give. rule-model.ts validates against them (with rule-checks.ts).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Body, HeaderValue, HeaderName, Status, StringEnum } from '../schema/index.js';
import { ChunkedSpec, DelaySpec, FaultName, MAX_DELAY_MS } from './latency-schema.js';

export { MAX_DELAY_MS };

export const RULE_METHODS = [
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'HEAD',
  'TRACE',
  '*',
] as const;
/** A callout's methods: the rule's (the hosted document lists TRACE for both). */
const CALLOUT_METHODS = RULE_METHODS;

/** Most rules one bulk replace (PUT …/rules) carries (SPEC §4). */
export const MAX_RULES = 500;
/** Most rules an endpoint holds, whatever its plan (rules are indexed: a thousand cost about what one does). */
export const MAX_ENDPOINT_RULES = 2000;

export const RuleId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
const CondValue = Type.String({ maxLength: 4096 });
const Key = Type.String({ minLength: 1, maxLength: 256 });

/** An async callout's wait before it is sent, in ms (bounded: a waiting callout holds a queue slot). */
const CalloutDelay = Type.Number({ minimum: 0, maximum: MAX_DELAY_MS });

/** Response headers of a rule: a list (a name may repeat); `templated: true` renders the value. */
const RuleHeaderList = Type.Array(
  Type.Object(
    {
      key: HeaderName,
      value: HeaderValue,
      templated: Type.Optional(Type.Boolean({ description: 'render the value as a template' })),
    },
    { additionalProperties: false },
  ),
  { maxItems: 100 },
);

/** State-condition operators under the hosted service's names, and the short names it also accepts. */
export const STATE_OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'greater_than',
  'less_than',
  'greater_than_equal',
  'less_than_equal',
  'gt',
  'lt',
  'gte',
  'lte',
  'exists',
  'not_exists',
] as const;
const Url = Type.String({ minLength: 8, maxLength: 2048, pattern: '^https?://' });

function cond<P extends Record<string, TSchema>, T extends string>(type: T, props: P, description: string) {
  return Type.Object({ type: Type.Literal(type), ...props }, { additionalProperties: false, description });
}

export const Condition = Type.Union(
  [
    cond(
      'path',
      { operator: StringEnum(['equals', 'starts_with', 'contains', 'regex', 'template']), value: CondValue },
      'The path without its query string; `template` is `/users/:id`.',
    ),
    cond(
      'header',
      { key: HeaderName, operator: StringEnum(['equals', 'contains', 'regex']), value: CondValue },
      'A request header, by case-insensitive name.',
    ),
    cond(
      'query_param',
      {
        key: Key,
        operator: StringEnum(['equals', 'contains', 'regex', 'exists']),
        value: Type.Optional(CondValue),
      },
      'A query parameter.',
    ),
    cond('body', { operator: StringEnum(['contains', 'regex']), value: CondValue }, 'The raw request body.'),
    cond(
      'body_param',
      {
        key: Type.String({ minLength: 1, maxLength: 256, description: 'dotted path, e.g. `user.tags.0`' }),
        operator: StringEnum(['equals', 'not_equals', 'contains', 'not_contains', 'is_null', 'is_not_null']),
        value: Type.Optional(CondValue),
      },
      'A value of the parsed JSON or form body.',
    ),
    cond(
      'state',
      {
        key: Key,
        stateType: StringEnum(['counter', 'string', 'list']),
        operator: StringEnum(STATE_OPERATORS),
        value: Type.Optional(CondValue),
      },
      "The endpoint's persistent state; for a list, greater_than… compare its length.",
    ),
    cond(
      'graphql',
      { operator: StringEnum(['equals', 'contains', 'regex']), value: CondValue },
      '`equals`: the GraphQL operation name (`operationName`, or the first named operation of `query`), ' +
        "in a JSON body or a GET's query string; `contains`, `regex`: the query text.",
    ),
    cond(
      'soap_action',
      { operator: StringEnum(['equals']), value: CondValue },
      'The SOAPAction header (quotes stripped), or the `action` parameter of a SOAP 1.2 Content-Type.',
    ),
  ],
  { discriminator: { propertyName: 'type' } },
);

// Status and body are written out rather than spread from the primitives: a spread schema's type
// cannot be named in the published declaration files.
const ResponseFields = {
  status: Type.Optional(Type.Integer({ minimum: Status.minimum, maximum: Status.maximum, default: 200 })),
  // No `default: []` on arrays: TypeBox would merge an object value into the default array.
  headers: Type.Optional(RuleHeaderList),
  body: Type.Optional(Type.String({ maxLength: Body.maxLength, default: '' })),
  templated: Type.Optional(Type.Boolean({ default: false })),
  delay: Type.Optional(DelaySpec),
};

/** What only a mock answer (and a weighted one) can do: fail on purpose, or dribble its body. */
const FailureFields = {
  fault: Type.Optional(FaultName),
  chunked: Type.Optional(ChunkedSpec),
};

export const Action = Type.Union(
  [
    Type.Object(
      {
        type: Type.Literal('mock'),
        ...ResponseFields,
        ...FailureFields,
        blobPath: Type.Optional(
          Type.String({
            pattern: '^res-body-[A-Za-z0-9._-]{1,200}$',
            description: 'a file uploaded with POST …/blobs, answered instead of `body`',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        type: Type.Literal('weighted'),
        responses: Type.Array(
          Type.Object(
            {
              name: Type.Optional(Type.String({ maxLength: 200, default: '' })),
              weight: Type.Number({ minimum: 0, maximum: 100 }),
              ...ResponseFields,
              ...FailureFields,
            },
            { additionalProperties: false },
          ),
          { minItems: 1, maxItems: 100, description: 'weights sum to 100' },
        ),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        type: Type.Literal('callout'),
        behavior: StringEnum(['sync', 'async']),
        callout: Type.Object(
          {
            url: Url,
            method: Type.Optional(
              StringEnum(CALLOUT_METHODS, { default: '*', description: "`*`: the request's method" }),
            ),
            transform: Type.Optional(
              StringEnum(['forward', 'custom'], {
                default: 'forward',
                description:
                  "`forward`: the request's body and headers; `custom`: the callout's own `body` and `headers`",
              }),
            ),
            headers: Type.Optional(RuleHeaderList),
            body: Type.Optional(Body),
            templated: Type.Optional(Type.Boolean({ default: false })),
            delay: Type.Optional(
              Type.Object(
                { min: CalloutDelay, max: CalloutDelay },
                {
                  additionalProperties: false,
                  // Answered even when not sent: the hosted document's callout always carries it.
                  default: { min: 0, max: 0 },
                  description: '`async`: the callout waits a random time between min and max ms',
                },
              ),
            ),
            connectionId: Type.Optional(
              Type.String({ maxLength: 200, description: 'kept and shown, not used' }),
            ),
          },
          { additionalProperties: false },
        ),
        ...ResponseFields,
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        type: Type.Literal('crud'),
        idField: Type.Optional(
          Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z_$][A-Za-z0-9_$]*$', default: 'id' }),
        ),
      },
      { additionalProperties: false },
    ),
  ],
  { discriminator: { propertyName: 'type' } },
);

const ruleFields = {
  enabled: Type.Optional(Type.Boolean({ default: true })),
  method: Type.Optional(StringEnum(RULE_METHODS, { default: '*' })),
  description: Type.Optional(Type.String({ maxLength: 1000, default: '' })),
  conditions: Type.Array(Condition, { minItems: 1, maxItems: 5, description: 'all must hold' }),
  action: Action,
};

/** A rule as written by a client; `id` is kept by bulk replace and ignored elsewhere. */
export const RuleInput = Type.Object(
  { id: Type.Optional(RuleId), ...ruleFields },
  { additionalProperties: false, title: 'RuleInput' },
);

/** A rule as the API returns it. */
export const Rule = Type.Object(
  {
    id: RuleId,
    enabled: Type.Boolean(),
    method: StringEnum(RULE_METHODS),
    description: Type.String(),
    conditions: ruleFields.conditions,
    action: Action,
  },
  { title: 'Rule' },
);

/** PATCH: top-level fields replace, `action` merges into an action of the same type; the result is validated whole. */
export const RulePatch = Type.Object(
  {
    id: Type.Optional(Type.String()),
    enabled: Type.Optional(Type.Boolean()),
    method: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    conditions: Type.Optional(Type.Array(Type.Unknown())),
    action: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false, title: 'RulePatch' },
);

export type Rule = Static<typeof Rule>;
export type Condition = Static<typeof Condition>;
export type Action = Static<typeof Action>;
/** A rule without its id: what the store keeps as the rule's document. */
export type RuleData = Omit<Rule, 'id'>;
