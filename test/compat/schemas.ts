/**
 * The management API's answers as the hosted service's scripts read them: one JSON Schema per route's
 * answer, written from the product contract (not from our code), so that a later change cannot drift.
 *
 * Conventions, for every schema here:
 * - `additionalProperties` is allowed: our own extra fields are fine; a script never sees them unless it
 *   looks for them.
 * - Every field the contract names for an answer is `required`, with its exact type.
 * - A string is `type: 'string'`, which refuses `null`: the contract leaves an unset string out rather
 *   than answering `null` (the only exception is a history entry's `request.body`).
 * - Where the contract names a field but not its type, the type is the one a script would assume from
 *   the name and the example (a count is an integer, a flag a boolean); such choices are marked "decision".
 *
 * `ROUTES` at the bottom maps each route to its answer's schema: the one place to look up a route.
 */
import type { SchemaObject } from 'ajv';

// ---------------------------------------------------------------------------------------------------
// Building blocks

const str = { type: 'string' } as const;
const nonEmpty = { type: 'string', minLength: 1 } as const;
const bool = { type: 'boolean' } as const;
const int = { type: 'integer' } as const;
const count = { type: 'integer', minimum: 0 } as const;
const num = { type: 'number' } as const;
const yes = { const: true } as const;

/** ISO 8601 UTC with milliseconds: `2026-05-15T02:46:30.000Z`. */
const isoMs = {
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
} as const;

/** An object with these fields required (and any others allowed). */
function obj(props: Record<string, SchemaObject>, required: string[] = Object.keys(props)): SchemaObject {
  return { type: 'object', properties: props, required };
}

/** `{ "data": [item…] }`. */
function dataList(item: SchemaObject): SchemaObject {
  return obj({ data: { type: 'array', items: item } });
}

/** Header values: a string, or (a header sent more than once) a list of strings. */
const headerMap = {
  type: 'object',
  additionalProperties: { anyOf: [str, { type: 'array', items: str }] },
} as const;

/** A rule's header item. */
const headerItem = obj({ key: nonEmpty, value: str, templated: bool }, ['key', 'value']);
const headerItems = { type: 'array', items: headerItem } as const;

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', '*'];

// ---------------------------------------------------------------------------------------------------
// Errors

/** `{ "error": { "code", "message", "details"? } }` for every error. */
export const ErrorBody = obj({
  error: obj(
    {
      code: { type: 'string', pattern: '^[a-z_]+$' },
      message: nonEmpty,
      details: {
        type: 'array',
        items: obj({ path: str, message: str, received: str }, ['path', 'message']),
      },
    },
    ['code', 'message'],
  ),
});

/** A 400 has `details` naming what was wrong. */
export const ValidationError = obj({
  error: obj({
    code: { const: 'validation_error' },
    message: nonEmpty,
    details: { type: 'array', minItems: 1, items: obj({ path: str, message: str }) },
  }),
});

// ---------------------------------------------------------------------------------------------------
// Endpoints

const endpointName = { type: 'string', pattern: '^[a-z][a-z0-9-]{1,38}[a-z0-9]$' } as const;

/** An endpoint: the contract fixes its `name` (what `POST /endpoints` takes). */
export const Endpoint = obj({ name: endpointName, plan: nonEmpty, createdAt: isoMs }, ['name']);
export const EndpointList = dataList(Endpoint);
/** Decision: the contract does not name the fields; like every other delete it says `deleted: true`. */
export const EndpointDeleted = obj({ deleted: yes });

// ---------------------------------------------------------------------------------------------------
// Settings

/** `GET`/`PATCH …/settings`: every key always present; an unset string left out, never `null`. */
export const Settings = obj({
  proxy: obj({ targetUrl: { type: 'string', format: 'uri' }, ignoreSSLErrors: bool, record: bool }, [
    'ignoreSSLErrors',
    'record',
  ]),
  localTunnel: bool,
  cors: obj({ origins: { type: 'array', items: str } }),
  rateLimit: obj({ enabled: bool, rate: int, period: { enum: ['Second', 'Minute', 'Hour'] } }),
  security: obj({ enabled: bool, headerKey: str, headerValue: str }, ['enabled']),
  defaultResponse: obj(
    {
      status: { type: 'integer', minimum: 100, maximum: 599 },
      headers: { anyOf: [headerMap, headerItems] },
      body: str,
    },
    ['status', 'headers'],
  ),
  rules: obj({ enabled: bool }),
  crud: obj({ autoDelete: bool }),
  customDomain: obj({ enabled: bool, domain: nonEmpty }, ['enabled']),
  mtls: obj({ enabled: bool }),
  locale: nonEmpty,
  plan: nonEmpty,
});

// ---------------------------------------------------------------------------------------------------
// Rules

/** Operators per condition type; `key` is required for the types that name one. */
const CONDITIONS: Record<
  string,
  { operators: string[]; key: boolean; extra?: Record<string, SchemaObject> }
> = {
  path: { operators: ['equals', 'starts_with', 'contains', 'regex', 'template'], key: false },
  header: { operators: ['equals', 'contains', 'regex'], key: true },
  query_param: { operators: ['equals', 'contains', 'regex', 'exists'], key: true },
  body: { operators: ['contains', 'regex'], key: false },
  body_param: {
    operators: ['equals', 'not_equals', 'contains', 'not_contains', 'is_null', 'is_not_null'],
    key: true,
  },
  state: {
    operators: [
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
    ],
    key: true,
    extra: { stateType: { enum: ['counter', 'string', 'list'] } },
  },
  graphql: { operators: ['equals', 'contains', 'regex'], key: false },
  soap_action: { operators: ['equals'], key: false },
};

/** Operators that test presence, for which `value` may be left out. */
const NO_VALUE = ['exists', 'is_null', 'is_not_null'];

export const Condition: SchemaObject = {
  type: 'object',
  required: ['type', 'operator'],
  properties: { type: { enum: Object.keys(CONDITIONS) }, operator: str, value: str, key: nonEmpty },
  allOf: [
    ...Object.entries(CONDITIONS).map(([type, c]) => ({
      if: obj({ type: { const: type } }),
      then: obj(
        { operator: { enum: c.operators }, ...(c.key ? { key: nonEmpty } : {}), ...(c.extra ?? {}) },
        ['operator', ...(c.key ? ['key'] : []), ...Object.keys(c.extra ?? {})],
      ),
    })),
    { if: obj({ operator: { not: { enum: NO_VALUE } } }), then: { required: ['value'] } },
  ],
};

const status = { type: 'integer', minimum: 100, maximum: 599 } as const;
const delay = { type: 'number', minimum: 0, maximum: 600000 } as const;

const MockAction: SchemaObject = {
  ...obj(
    {
      type: { const: 'mock' },
      status,
      headers: headerItems,
      body: str,
      blobPath: nonEmpty,
      templated: bool,
      delay,
    },
    ['type', 'status', 'headers', 'templated', 'delay'],
  ),
  anyOf: [{ required: ['body'] }, { required: ['blobPath'] }],
};

const WeightedAction = obj({
  type: { const: 'weighted' },
  responses: {
    type: 'array',
    minItems: 1,
    items: obj(
      {
        name: str,
        weight: { type: 'number', minimum: 0, maximum: 100 },
        status,
        headers: headerItems,
        body: str,
        templated: bool,
        delay,
      },
      ['weight', 'status', 'headers', 'body', 'templated', 'delay'],
    ),
  },
});

const CalloutAction = obj(
  {
    type: { const: 'callout' },
    behavior: { enum: ['sync', 'async'] },
    callout: obj(
      {
        url: { type: 'string', format: 'uri' },
        method: { enum: METHODS },
        transform: { enum: ['forward', 'custom'] },
        headers: headerItems,
        body: str,
        templated: bool,
        delay: obj({ min: delay, max: delay }),
        connectionId: nonEmpty,
      },
      // `body` is not required: with `transform: "forward"` a callout has none of its own, and an unset
      // string is left out, never `null` (the contract's rule for settings, followed everywhere).
      ['url', 'method', 'transform', 'headers', 'templated', 'delay'],
    ),
    status,
    headers: headerItems,
    body: str,
    templated: bool,
  },
  ['type', 'behavior', 'callout', 'status', 'headers', 'body', 'templated'],
);

const CrudAction = obj({ type: { const: 'crud' }, idField: nonEmpty });

export const Action: SchemaObject = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ['mock', 'weighted', 'callout', 'crud'] } },
  allOf: [
    { if: obj({ type: { const: 'mock' } }), then: MockAction },
    { if: obj({ type: { const: 'weighted' } }), then: WeightedAction },
    { if: obj({ type: { const: 'callout' } }), then: CalloutAction },
    { if: obj({ type: { const: 'crud' } }), then: CrudAction },
  ],
};

/** A rule, as every rule route answers it. */
export const Rule = obj({
  id: nonEmpty,
  enabled: bool,
  method: { enum: METHODS },
  description: str,
  conditions: { type: 'array', minItems: 1, maxItems: 5, items: Condition },
  action: Action,
});
export const RuleList = dataList(Rule);
export const RulesReplaced = obj({ replaced: count });
export const RulesReordered = obj({ data: obj({ reordered: count }) });
export const RulesDeleted = obj({ deleted: yes, count });
export const RuleDeleted = obj({ id: nonEmpty, deleted: yes });

// ---------------------------------------------------------------------------------------------------
// Blobs

export const BlobCreated = obj({
  blobPath: { type: 'string', pattern: '^res-body-[0-9TZ:.-]+-[A-Za-z0-9]+(\\.[A-Za-z0-9]+)?$' },
});
/** Decision: the contract says the list "lists them"; each item names its `blobPath`. */
export const BlobList = dataList(obj({ blobPath: BlobCreated['properties'].blobPath as SchemaObject }));
/** Decision: like every other delete, `deleted: true`. */
export const BlobDeleted = obj({ deleted: yes });

// ---------------------------------------------------------------------------------------------------
// State

export const StateItem: SchemaObject = {
  ...obj({
    type: { enum: ['counter', 'string', 'list'] },
    key: nonEmpty,
    value: {},
    lastModified: { type: 'integer', minimum: 1_000_000_000_000 },
  }),
  allOf: [
    { if: obj({ type: { const: 'counter' } }), then: obj({ value: int }) },
    { if: obj({ type: { const: 'list' } }), then: obj({ value: { type: 'array' } }) },
  ],
};
export const StateList = obj({
  data: { type: 'array', items: StateItem },
  pagination: obj({
    total: count,
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    offset: count,
    hasMore: bool,
  }),
});
export const StateUpserted = obj({ created: count, updated: count });
export const StateDeleted = obj({ deleted: yes, count });
export const StateItemDeleted = obj({ key: nonEmpty, deleted: yes });

// ---------------------------------------------------------------------------------------------------
// Request history

const BEHAVIORS = ['echo', 'mock-rule', 'tunnel', 'proxy', 'oas', 'default', 'crud', 'callout', 'rejected'];

/** `rule.ruleId` is there exactly when a rule matched. */
const ruleMatch: SchemaObject = {
  ...obj({ matched: bool, ruleId: nonEmpty }, ['matched']),
  if: obj({ matched: { const: true } }),
  then: { required: ['ruleId'] },
  else: { not: { required: ['ruleId'] } },
};

const file = obj({ name: str, fileName: str, contentType: str, size: count });

const summaryProps = {
  id: nonEmpty,
  date: isoMs,
  method: { type: 'string', pattern: '^[A-Z]+$' },
  path: { type: 'string', pattern: '^/' },
  status,
  timeTaken: count,
  rule: ruleMatch,
  behavior: { enum: BEHAVIORS },
  ip: nonEmpty,
  isMultipart: bool,
  files: { type: 'array', items: file },
};

/** An entry of the list (summary mode). */
export const HistoryEntry = obj(summaryProps);

/** Verbose: the request and response with headers and bodies. `request.body` alone may be `null`. */
export const HistoryEntryVerbose = obj({
  ...summaryProps,
  request: obj({
    headers: headerMap,
    body: { type: ['string', 'null'] },
    httpVersion: { pattern: '^\\d(\\.\\d)?$', type: 'string' },
  }),
  response: obj({
    headers: headerMap,
    body: str,
    httpVersion: { pattern: '^\\d(\\.\\d)?$', type: 'string' },
  }),
});

/** A page: `cursor` there exactly when `hasMore` is true. */
function historyPage(entry: SchemaObject): SchemaObject {
  return obj({
    data: { type: 'array', items: entry },
    pagination: {
      ...obj({ cursor: nonEmpty, hasMore: bool, limit: { type: 'integer', minimum: 1, maximum: 100 } }, [
        'hasMore',
        'limit',
      ]),
      if: obj({ hasMore: { const: true } }),
      then: { required: ['cursor'] },
      else: { not: { required: ['cursor'] } },
    },
  });
}
export const HistoryList = historyPage(HistoryEntry);
export const HistoryListVerbose = historyPage(HistoryEntryVerbose);
export const HistoryDeleted = obj({ deleted: yes, count });
export const HistoryEntryDeleted = obj({ id: nonEmpty, deleted: yes });

// ---------------------------------------------------------------------------------------------------
// OpenAPI specs and their jobs

export const SpecJob = obj(
  {
    jobId: nonEmpty,
    type: { const: 'oas' },
    status: { enum: ['QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED'] },
    message: str,
  },
  ['jobId', 'type', 'status'],
);
export const Job: SchemaObject = {
  ...obj({ ...SpecJob['properties'], progress: num, completedAt: isoMs, failedAt: isoMs }, [
    'jobId',
    'type',
    'status',
    'progress',
  ]),
  allOf: [
    { if: obj({ status: { const: 'COMPLETED' } }), then: { required: ['completedAt', 'result'] } },
    { if: obj({ status: { const: 'FAILED' } }), then: { required: ['failedAt'] } },
  ],
};
export const SpecInfo = obj({
  data: obj({
    type: { const: 'openapi' },
    intelligenceMock: bool,
    title: str,
    version: str,
    operations: { type: 'array' },
  }),
});
export const SpecDeleted = obj({ data: obj({ deleted: yes }) });

// ---------------------------------------------------------------------------------------------------
// API keys

const apiKey = { type: 'string', pattern: '^mb_[A-Za-z0-9_-]{32,}$' } as const;
/**
 * `endpoint` is the scope's name, or `null` for an admin key: a key with no scope has no name to give,
 * and the contract lists `endpoint` among the answer's fields (so it is not left out).
 */
const scope = { type: ['string', 'null'] } as const;
export const KeyCreated = obj({ id: nonEmpty, key: apiKey, endpoint: scope });
export const KeyList = dataList({
  ...obj({ id: nonEmpty, endpoint: scope }),
  not: { anyOf: [{ required: ['key'] }] },
});
export const KeyDeleted = obj({ id: nonEmpty, deleted: yes });

// ---------------------------------------------------------------------------------------------------
// TLS client certificates

const pem = (label: string): SchemaObject => ({ type: 'string', pattern: `^-----BEGIN ${label}-----` });
const certProps = { id: nonEmpty, name: nonEmpty, cert: pem('CERTIFICATE'), expiry: isoMs, createdAt: isoMs };
export const MtlsCertificateCreated = obj({ ...certProps, key: pem('[A-Z ]*PRIVATE KEY') });
export const MtlsCertificateList = dataList({ ...obj(certProps), not: { required: ['key'] } });
export const MtlsCertificateDeleted = obj({ id: nonEmpty, deleted: yes });

// ---------------------------------------------------------------------------------------------------
// TOTP

export const TotpCode = obj({
  id: { type: 'string', format: 'uuid' },
  otp: { type: 'string', pattern: '^[0-9]{6,10}$' },
  expiresAt: isoMs,
});
export const TotpMigration = obj({ data: { type: 'array', minItems: 1, items: TotpCode } });

// ---------------------------------------------------------------------------------------------------
// Real-time events: the names, and the one payload the contract fixes

export const EVENT_NAMES = [
  'request.created',
  'requests.deleted',
  'rule.created',
  'rule.updated',
  'rule.deleted',
  'rules.deleted',
  'rules.reordered',
  'settings.updated',
  'tunnel.connected',
  'tunnel.disconnected',
] as const;
export const RuleDeletedEvent = obj({ id: nonEmpty });

// ---------------------------------------------------------------------------------------------------
// Every schema by name, and every route with the schema of its success answer

export const SCHEMAS = {
  ErrorBody,
  ValidationError,
  Endpoint,
  EndpointList,
  EndpointDeleted,
  Settings,
  Rule,
  RuleList,
  RulesReplaced,
  RulesReordered,
  RulesDeleted,
  RuleDeleted,
  BlobCreated,
  BlobList,
  BlobDeleted,
  StateItem,
  StateList,
  StateUpserted,
  StateDeleted,
  StateItemDeleted,
  HistoryEntry,
  HistoryEntryVerbose,
  HistoryList,
  HistoryListVerbose,
  HistoryDeleted,
  HistoryEntryDeleted,
  SpecJob,
  Job,
  SpecInfo,
  SpecDeleted,
  KeyCreated,
  KeyList,
  KeyDeleted,
  MtlsCertificateCreated,
  MtlsCertificateList,
  MtlsCertificateDeleted,
  TotpCode,
  TotpMigration,
  RuleDeletedEvent,
} satisfies Record<string, SchemaObject>;

export type SchemaName = keyof typeof SCHEMAS;

/** A route: method and path (under `/api/v2`, or the TOTP API's own), success status and answer schema. */
export interface RouteContract {
  status: number;
  /** The answer's schema; `null` for an answer that is not JSON (a file, an event stream). */
  schema: SchemaName | null;
}

/** Every route of the hosted v2 API that Mockingbird serves, with its answer. */
export const ROUTES: Record<string, RouteContract> = {
  'POST /api/v2/endpoints': { status: 201, schema: 'Endpoint' },
  'GET /api/v2/endpoints': { status: 200, schema: 'EndpointList' },
  'GET /api/v2/endpoints/:ep': { status: 200, schema: 'Endpoint' },
  'DELETE /api/v2/endpoints/:ep': { status: 200, schema: 'EndpointDeleted' },
  'GET /api/v2/endpoints/:ep/settings': { status: 200, schema: 'Settings' },
  'PATCH /api/v2/endpoints/:ep/settings': { status: 200, schema: 'Settings' },
  'GET /api/v2/endpoints/:ep/rules': { status: 200, schema: 'RuleList' },
  'POST /api/v2/endpoints/:ep/rules': { status: 201, schema: 'Rule' },
  'PUT /api/v2/endpoints/:ep/rules': { status: 200, schema: 'RulesReplaced' },
  'DELETE /api/v2/endpoints/:ep/rules': { status: 200, schema: 'RulesDeleted' },
  'POST /api/v2/endpoints/:ep/rules/reorder': { status: 200, schema: 'RulesReordered' },
  'GET /api/v2/endpoints/:ep/rules/:ruleId': { status: 200, schema: 'Rule' },
  'PUT /api/v2/endpoints/:ep/rules/:ruleId': { status: 200, schema: 'Rule' },
  'PATCH /api/v2/endpoints/:ep/rules/:ruleId': { status: 200, schema: 'Rule' },
  'DELETE /api/v2/endpoints/:ep/rules/:ruleId': { status: 200, schema: 'RuleDeleted' },
  'POST /api/v2/endpoints/:ep/blobs': { status: 201, schema: 'BlobCreated' },
  'GET /api/v2/endpoints/:ep/blobs': { status: 200, schema: 'BlobList' },
  'DELETE /api/v2/endpoints/:ep/blobs/:blobPath': { status: 200, schema: 'BlobDeleted' },
  'GET /api/v2/endpoints/:ep/state': { status: 200, schema: 'StateList' },
  'PUT /api/v2/endpoints/:ep/state': { status: 200, schema: 'StateUpserted' },
  'DELETE /api/v2/endpoints/:ep/state': { status: 200, schema: 'StateDeleted' },
  'GET /api/v2/endpoints/:ep/state/:type/:key': { status: 200, schema: 'StateItem' },
  'DELETE /api/v2/endpoints/:ep/state/:type/:key': { status: 200, schema: 'StateItemDeleted' },
  'GET /api/v2/endpoints/:ep/requests': { status: 200, schema: 'HistoryList' },
  'GET /api/v2/endpoints/:ep/requests?mode=verbose': { status: 200, schema: 'HistoryListVerbose' },
  'GET /api/v2/endpoints/:ep/requests?id=:id': { status: 200, schema: 'HistoryEntry' },
  'DELETE /api/v2/endpoints/:ep/requests': { status: 200, schema: 'HistoryDeleted' },
  'DELETE /api/v2/endpoints/:ep/requests?id=:id': { status: 200, schema: 'HistoryEntryDeleted' },
  'GET /api/v2/endpoints/:ep/requests/:id': { status: 200, schema: 'HistoryEntryVerbose' },
  'DELETE /api/v2/endpoints/:ep/requests/:id': { status: 200, schema: 'HistoryEntryDeleted' },
  'GET /api/v2/endpoints/:ep/requests/:id/multipart/download': { status: 200, schema: null },
  'GET /api/v2/endpoints/:ep/requests/:id/files/:fieldName': { status: 200, schema: null },
  'POST /api/v2/endpoints/:ep/requests/:id/rule': { status: 201, schema: 'Rule' },
  'POST /api/v2/endpoints/:ep/specs': { status: 202, schema: 'SpecJob' },
  'GET /api/v2/endpoints/:ep/specs': { status: 200, schema: 'SpecInfo' },
  'DELETE /api/v2/endpoints/:ep/specs': { status: 200, schema: 'SpecDeleted' },
  'GET /api/v2/endpoints/:ep/jobs/:jobId': { status: 200, schema: 'Job' },
  'GET /api/v2/endpoints/:ep/events': { status: 200, schema: null },
  'POST /api/v2/endpoints/:ep/mtls/certificates': { status: 201, schema: 'MtlsCertificateCreated' },
  'GET /api/v2/endpoints/:ep/mtls/certificates': { status: 200, schema: 'MtlsCertificateList' },
  'DELETE /api/v2/endpoints/:ep/mtls/certificates/:certId': { status: 200, schema: 'MtlsCertificateDeleted' },
  'POST /api/v2/keys': { status: 201, schema: 'KeyCreated' },
  'GET /api/v2/keys': { status: 200, schema: 'KeyList' },
  'DELETE /api/v2/keys/:id': { status: 200, schema: 'KeyDeleted' },
  'POST /2FA/TOTP/': { status: 200, schema: 'TotpCode' },
  'GET /2FA/TOTP/:id': { status: 200, schema: 'TotpCode' },
};
