/**
 * TypeBox schemas of the request-history API (SPEC §4 "Request history"): the filter query shared by
 * the list and the bulk delete, the path parameters, and the response shapes. They validate the
 * requests, type the handlers and feed the API's OpenAPI document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../schema/index.js';
import { ErrorBody } from './schemas/common.js';
import type { Behavior } from '../store/index.js';
import { HISTORY_EXPORT_CEILING } from '../config.js';
import { MAX_VIOLATIONS, MAX_VIOLATION_MESSAGE } from '../history/index.js';

export const BEHAVIORS: readonly Behavior[] = [
  'echo',
  'mock-rule',
  'tunnel',
  'proxy',
  'oas',
  'default',
  'crud',
  'callout',
  'rejected',
  'grpc',
];

/**
 * Behaviours of the hosted service that Mockingbird does not have (yet): its scripts filter by them,
 * so they are accepted as filters (SPEC §4) and match nothing.
 */
export const HOSTED_ONLY_BEHAVIORS = ['wsdl', 'graphql'] as const;

/** Largest page of the JSON list (an export's `limit` is bounded by HISTORY_EXPORT_MAX instead). */
export const MAX_PAGE = 100;

/** Longest text filter (path, bodies): bounds the work one filter can ask of the database. */
export const MAX_FILTER_TEXT = 1000;

/**
 * ISO 8601 timestamp: `2026-05-15T02:46:30Z` or `2024-01-15T10:30:00+05:30`, seconds and fraction
 * optional. The pattern checks the form; history-query.ts checks that the date exists (no 30
 * February) and applies the offset.
 */
export const ISO_DATE_PATTERN =
  '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}(:?\\d{2})?)$';

/** `30s`, `15m`, `1h`, `7d`: a positive whole number and a unit. */
export const DATE_RANGE_PATTERN = '^[1-9][0-9]{0,5}[smhd]$';

const isoDate = (description: string) =>
  Type.String({
    pattern: ISO_DATE_PATTERN,
    description,
    examples: ['2026-05-15T02:46:30Z', '2024-01-15T10:30:00+05:30'],
  });

const text = (description: string) => Type.String({ minLength: 1, maxLength: MAX_FILTER_TEXT, description });

/** The seed's filters, combined with AND. Shared by the list (GET) and the bulk delete. */
export const filterProperties = {
  dateFrom: Type.Optional(isoDate('Entries received at or after this instant (ISO 8601, `Z` or an offset).')),
  dateTo: Type.Optional(isoDate('Entries received at or before this instant (ISO 8601, `Z` or an offset).')),
  dateRange: Type.Optional(
    Type.String({
      pattern: DATE_RANGE_PATTERN,
      description:
        'Entries from this long ago until now: a number and s, m, h or d (`30s`, `15m`, `1h`, `7d`).',
      examples: ['1h'],
    }),
  ),
  method: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z][A-Za-z-]{0,31}$',
      description: 'HTTP method of the recorded request (case-insensitive).',
    }),
  ),
  path: Type.Optional(
    text('Substring of the path (query string included), or a regular expression written `/…/`.'),
  ),
  status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599, description: 'Response status.' })),
  behavior: Type.Optional(
    StringEnum([...BEHAVIORS, ...HOSTED_ONLY_BEHAVIORS], {
      description:
        "What answered the request (`grpc`: a gRPC call; `wsdl`, `graphql`: the hosted service's, matching nothing).",
    }),
  ),
  ruleMatched: Type.Optional(
    Type.Boolean({ description: '`true`: a rule answered; `false`: the fallback chain did.' }),
  ),
  requestBody: Type.Optional(text('Substring of the recorded request body (case-sensitive).')),
  responseBody: Type.Optional(text('Substring of the recorded response body (case-sensitive).')),
  isMultipart: Type.Optional(Type.Boolean({ description: '`true`: multipart/form-data requests only.' })),
  hasAttachments: Type.Optional(Type.Boolean({ description: '`true`: requests that uploaded files only.' })),
  validation: Type.Optional(
    StringEnum(['failed', 'passed'], {
      description:
        "Contract checking against the endpoint's OpenAPI document: `failed`, the request or its answer " +
        'broke it (`validation` or `responseValidation` not empty); `passed`, checked and kept. Entries ' +
        'no document described match neither.',
    }),
  ),
};

/** `?id=` on the list and the bulk delete: that one entry, as the hosted service's scripts ask for it. */
const IdParam = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'One entry by id: answered alone (not wrapped), or deleted alone; no other filter with it.',
  }),
);

export const RequestParams = Type.Object({
  ep: Type.String({ minLength: 1, maxLength: 100 }),
  id: Type.String({ minLength: 1, maxLength: 100 }),
});
export const FileParams = Type.Object({
  ep: Type.String({ minLength: 1, maxLength: 100 }),
  id: Type.String({ minLength: 1, maxLength: 100 }),
  fieldName: Type.String({ minLength: 1, maxLength: 1000 }),
});

export const DownloadQuery = Type.Object(
  {
    fieldName: Type.String({ minLength: 1, maxLength: 1000, description: 'Form field name of the file.' }),
    component: Type.Optional(
      StringEnum(['Request', 'CalloutRequest'], {
        default: 'Request',
        description: "`Request`: uploaded with the request; `CalloutRequest`: sent by the rule's callout.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type DownloadQuery = Static<typeof DownloadQuery>;

const Mode = StringEnum(['summary', 'verbose'], {
  description: '`verbose` adds request and response headers and bodies.',
});

export const ListQuery = Type.Object(
  {
    ...filterProperties,
    id: IdParam,
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: HISTORY_EXPORT_CEILING,
        description:
          'Page size: 20 when left out, at most 100 (MAX_PAGE). With `format=har` or `ndjson`: the most ' +
          'entries exported, HISTORY_EXPORT_MAX when left out and at most that.',
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: '`pagination.cursor` of the previous page.',
      }),
    ),
    mode: Type.Optional(Mode),
    format: Type.Optional(
      StringEnum(['json', 'har', 'ndjson'], {
        description:
          '`json` (when left out): the page of entries; `har`: a HAR 1.2 document of every matching entry (up to `limit`); ' +
          '`ndjson`: the same entries, one verbose entry a line (`application/x-ndjson`). Both are streamed.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof ListQuery>;

export const DeleteQuery = Type.Object({ ...filterProperties, id: IdParam }, { additionalProperties: false });
export type DeleteQuery = Static<typeof DeleteQuery>;
export type FileParams = Static<typeof FileParams>;

/** One entry is always verbose; `mode` is accepted so that a client may send it everywhere. */
export const GetQuery = Type.Object({ mode: Type.Optional(Mode) }, { additionalProperties: false });

const Headers = Type.Record(Type.String(), Type.String());
/** Response headers: a header sent more than once (`Set-Cookie`) keeps each value. */
const ResponseHeaders = Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]));

export const FileMeta = Type.Object({
  name: Type.String({ description: 'Form field name.' }),
  fileName: Type.String(),
  contentType: Type.String(),
  size: Type.Integer(),
});

/** A rule callout's request and response, as kept with its entry (verbose mode). */
export const CalloutRecordSchema = Type.Object({
  behavior: Type.String({ enum: ['sync', 'async'] }),
  state: Type.String({
    enum: ['pending', 'done', 'failed', 'cancelled'],
    description:
      '`pending`: an async callout waiting for its delay or being sent; `done`: the target answered; ' +
      '`failed`: no answer (`error` says why); `cancelled`: never sent (a bound, or shutdown).',
  }),
  request: Type.Object({
    method: Type.String(),
    url: Type.String(),
    headers: ResponseHeaders,
    body: Type.String(),
    bodyTruncated: Type.Boolean(),
    files: Type.Array(FileMeta, {
      description: 'Files the callout sent: `…/multipart/download?component=CalloutRequest`.',
    }),
  }),
  response: Type.Optional(
    Type.Object({
      status: Type.Integer(),
      headers: ResponseHeaders,
      body: Type.String(),
      bodyTruncated: Type.Boolean(),
    }),
  ),
  error: Type.Optional(Type.String()),
  sentAt: Type.Optional(Type.String({ format: 'date-time' })),
  durationMs: Type.Optional(Type.Number()),
  connectionId: Type.Optional(Type.String()),
});

/** Each direction's messages of a gRPC call, in the verbose entry. */
const GrpcMessages = {
  messages: Type.Optional(
    Type.Array(Type.Unknown(), {
      description:
        'gRPC entries: the messages as proto3 JSON, in order; the first ones only when `truncated` (a count and a byte cap)',
    }),
  ),
  truncated: Type.Optional(
    Type.Boolean({ description: 'gRPC entries: `messages` lacks some of the call’s' }),
  ),
};

/** A gRPC call's method and how it ended. */
export const GrpcRecordSchema = Type.Object({
  service: Type.String({ examples: ['user.UserService'] }),
  method: Type.String({ examples: ['GetUser'] }),
  callType: Type.String({
    description: '`unary`, `server_streaming`, `client_streaming` or `bidirectional_streaming`',
  }),
  status: Type.Integer({ minimum: 0, maximum: 16, description: 'The gRPC status code the call ended with.' }),
  statusMessage: Type.String(),
});

/** One way a request or an answer breaks the endpoint's OpenAPI document (SPEC §7). */
export const ContractViolationSchema = Type.Object({
  in: Type.String({
    description:
      '`path`, `query`, `header`, `cookie`, `security`, `content-type`, `body`, `status` (`truncated`: the note of a cut list).',
  }),
  path: Type.String({
    description: "A parameter's name, or a JSON pointer into the body (`/items/0/name`).",
  }),
  message: Type.String({ maxLength: MAX_VIOLATION_MESSAGE }),
});

/**
 * An entry, with the hosted service's field names (`date`, `timeTaken`, `isMultipart`, `rule.ruleId`
 * only when a rule matched) and our own extras (`createdAt` and the precise `durationMs`, truncation
 * flags, problems); `request` and `response` in verbose mode. Fields are left out rather than null,
 * except `request.body` for a request that had none.
 */
export const RequestRecord = Type.Object({
  id: Type.String(),
  date: Type.String({ format: 'date-time', description: 'When the request arrived (ISO 8601 UTC, ms).' }),
  method: Type.String(),
  path: Type.String({ description: 'Path with query string, as the endpoint saw it.' }),
  status: Type.Integer(),
  timeTaken: Type.Integer({ description: 'Whole milliseconds from arrival to the end of the answer.' }),
  rule: Type.Object({
    matched: Type.Boolean(),
    ruleId: Type.Optional(Type.String({ description: 'Present only when a rule matched.' })),
  }),
  behavior: Type.String({ enum: [...BEHAVIORS] }),
  ip: Type.String(),
  isMultipart: Type.Boolean(),
  files: Type.Array(FileMeta),
  createdAt: Type.String({
    format: 'date-time',
    description: 'The same as `date` (kept for older clients).',
  }),
  durationMs: Type.Number({ description: '`timeTaken` with its fraction.' }),
  requestBodyTruncated: Type.Boolean(),
  responseBodyTruncated: Type.Boolean(),
  problems: Type.Array(Type.String(), { description: 'Template or pipeline problems noted.' }),
  responseName: Type.Optional(
    Type.String({ description: 'The response a weighted rule action chose (its `name`).' }),
  ),
  request: Type.Optional(
    Type.Object({
      headers: Headers,
      body: Type.Union([Type.String(), Type.Null()], { description: 'null when the request had no body.' }),
      httpVersion: Type.String({ examples: ['1.1'] }),
      ...GrpcMessages,
    }),
  ),
  response: Type.Optional(
    Type.Object({
      headers: ResponseHeaders,
      body: Type.String(),
      httpVersion: Type.String({ examples: ['1.1'] }),
      ...GrpcMessages,
    }),
  ),
  callout: Type.Optional(CalloutRecordSchema),
  grpc: Type.Optional(GrpcRecordSchema),
  validation: Type.Optional(
    Type.Array(ContractViolationSchema, {
      maxItems: MAX_VIOLATIONS,
      description:
        "How the request broke the endpoint's OpenAPI document; `[]`: it kept it. Left out when no document " +
        `described the request or validation is off. At most ${MAX_VIOLATIONS}: a longer list ends with ` +
        "`{ in: 'truncated' }` saying how many were left out.",
    }),
  ),
  responseValidation: Type.Optional(
    Type.Array(ContractViolationSchema, {
      maxItems: MAX_VIOLATIONS,
      description: "How the answer broke the operation's response for its status (as `validation`).",
    }),
  ),
});
export type RequestRecord = Static<typeof RequestRecord>;

export const RequestList = Type.Object({
  data: Type.Array(RequestRecord),
  pagination: Type.Object({
    cursor: Type.Optional(
      Type.String({ description: 'Pass as `cursor` for the next page; left out on the last page.' }),
    ),
    hasMore: Type.Boolean(),
    limit: Type.Integer(),
  }),
});

export const DeletedMany = Type.Object({ deleted: Type.Literal(true), count: Type.Integer() });
export const DeletedOne = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

/** Error responses every history route may give. */
export const errorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
};
