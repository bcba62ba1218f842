/**
 * The mock-rule schemas (SPEC §4): TypeBox schemas for conditions, actions and rules, their bounds,
 * and the TypeScript types they give. rule-model.ts validates against them (with rule-checks.ts).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Body, HeaderValue, HeaderName, Status, StringEnum } from '../schema/index.js';
import { CALL_TYPES, GrpcStatus } from '../grpc/index.js';
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
    cond(
      'grpc_method',
      {
        operator: Type.Optional(
          StringEnum(['equals', 'starts_with', 'contains', 'regex'], {
            default: 'equals',
            description: 'the hosted shape has none: `equals`',
          }),
        ),
        value: CondValue,
      },
      "A gRPC call's method, `pkg.Service/Method` (SPEC §13); never holds for an HTTP request.",
    ),
  ],
  { discriminator: { propertyName: 'type' } },
);

/** Most responses a `grpc` action lists (the hosted shape's bound). */
export const GRPC_MAX_RESPONSES = 4;
/** Most messages a streaming `grpc` action sends (`streamCount.max`). */
export const GRPC_MAX_STREAM_COUNT = 1000;
/** Longest wait between two streamed messages of a `grpc` action, in ms. */
export const GRPC_MAX_INTERVAL_MS = 60_000;
/** Most `google.rpc.Status` details a `grpc` action ends with. */
export const GRPC_MAX_DETAILS = 10;
/** Most entries of one metadata or trailers object of a `grpc` action. */
export const GRPC_MAX_METADATA = 100;
/** Longest `statusMessage` of a `grpc` action (it travels percent-encoded in `grpc-message`). */
export const GRPC_MAX_STATUS_MESSAGE = 4096;

/** gRPC metadata: lower-case names (digits, a-z, `_`, `-`, `.`), printable ASCII values. */
const GrpcMetadata = Type.Record(
  Type.String({ minLength: 1, maxLength: 256, pattern: '^[0-9a-z_.-]+$' }),
  Type.String({ maxLength: 8192, pattern: '^[\\u0020-\\u007e]*$' }),
  {
    additionalProperties: false,
    maxProperties: GRPC_MAX_METADATA,
    description:
      'lower-case names (0-9 a-z _ - .), not `grpc-*`; printable ASCII values (base64 for a `-bin` name)',
  },
);

/** One message of a `grpc` action: a template of the message's JSON, or the JSON itself (kept as text). */
const GrpcResponse = Type.Object(
  {
    body: Type.Optional(
      Type.Union([Type.String({ maxLength: Body.maxLength }), Type.Record(Type.String(), Type.Any())], {
        description:
          "the message as proto3 JSON: a template (SPEC §6) or a JSON object, stored as text; '{}' when left out",
      }),
    ),
    metadata: Type.Optional(GrpcMetadata),
  },
  { additionalProperties: false },
);

/** A `grpc` action (SPEC §13): the hosted shape, plus `interval`, `trailers` and `details`. */
export const GrpcActionSchema = Type.Object(
  {
    type: Type.Literal('grpc'),
    callType: StringEnum(CALL_TYPES),
    status: Type.Optional(
      Type.Integer({ minimum: GrpcStatus.OK, maximum: GrpcStatus.UNAUTHENTICATED, default: 0 }),
    ),
    statusMessage: Type.Optional(Type.String({ maxLength: GRPC_MAX_STATUS_MESSAGE, default: '' })),
    delay: Type.Optional(DelaySpec),
    responses: Type.Array(GrpcResponse, { minItems: 1, maxItems: GRPC_MAX_RESPONSES }),
    streamCount: Type.Optional(
      Type.Object(
        {
          min: Type.Integer({ minimum: 1, maximum: GRPC_MAX_STREAM_COUNT }),
          max: Type.Integer({ minimum: 1, maximum: GRPC_MAX_STREAM_COUNT }),
        },
        {
          additionalProperties: false,
          // Filled in when left out (grpc-rule-checks.ts), not by a schema default: TypeBox would
          // complete a partial `{ min }` from it.
          description:
            'server and bidirectional streaming: how many messages, a random count in min..max; { min: 1, max: 1 } when left out',
        },
      ),
    ),
    singleResponseRepeated: Type.Optional(
      Type.Boolean({
        default: false,
        description: '`true`: the first response is sent every time; `false`: the responses in turn',
      }),
    ),
    interval: Type.Optional(
      Type.Number({ minimum: 0, maximum: GRPC_MAX_INTERVAL_MS, description: 'ms between streamed messages' }),
    ),
    trailers: Type.Optional(GrpcMetadata),
    details: Type.Optional(
      Type.Array(
        Type.Object(
          { '@type': Type.String({ minLength: 1, maxLength: 512 }) },
          { additionalProperties: true, description: 'a google.protobuf.Any in proto3 JSON' },
        ),
        {
          maxItems: GRPC_MAX_DETAILS,
          description: '`google.rpc.Status` details, sent with a non-zero status',
        },
      ),
    ),
  },
  { additionalProperties: false },
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
    GrpcActionSchema,
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
/**
 * A `grpc` action as stored and read back: every response's body is text (a JSON object sent is
 * kept as its JSON) and its metadata an object.
 */
export type GrpcAction = Omit<Static<typeof GrpcActionSchema>, 'responses'> & {
  responses: { body: string; metadata: Record<string, string> }[];
};
/** A rule without its id: what the store keeps as the rule's document. */
export type RuleData = Omit<Rule, 'id'>;
