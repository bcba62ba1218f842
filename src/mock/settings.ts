/**
 * Endpoint settings (SPEC §4): the PATCH schema, the defaults a GET shows, and the merge. The store
 * keeps only what was set (plus the plan), so that a default changed in a later version reaches
 * endpoints that never set it; readers (the pipeline) treat a missing field as its default.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { Json, JsonObject } from '../store/index.js';
import {
  Body,
  HeaderList,
  HeaderMap,
  HeaderName,
  HostName,
  Nullable,
  Status,
  StringEnum,
} from '../schema/index.js';
import { DelayValue, FaultName } from './latency-schema.js';

/** How an uploaded OpenAPI document checks requests and answers (SPEC §7, contract checking). */
export const CONTRACT_MODES = ['off', 'report', 'enforce'] as const;

/** The largest chaos seed (a 32-bit generator's state). */
export const CHAOS_SEED_MAX = 0xffff_ffff;

const DefaultResponse = Type.Object(
  {
    status: Type.Optional(Status),
    headers: Type.Optional(Type.Union([HeaderMap, HeaderList])),
    body: Type.Optional(Body),
  },
  { additionalProperties: false },
);

/** Every field optional: PATCH merges (nested objects field by field); null clears a nullable field. */
export const SettingsPatch = Type.Object(
  {
    proxy: Type.Optional(
      Type.Object(
        {
          targetUrl: Type.Optional(
            Nullable(Type.String({ minLength: 8, maxLength: 2048, pattern: '^https?://' })),
          ),
          ignoreSSLErrors: Type.Optional(Type.Boolean()),
          record: Type.Optional(
            Type.Boolean({
              description: 'turn each proxied exchange whose method and path have no rule yet into a rule',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    localTunnel: Type.Optional(Type.Boolean()),
    cors: Type.Optional(
      Type.Object(
        {
          origins: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
              maxItems: 100,
              description: '"*" or origins such as https://app.example.com',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    rateLimit: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          rate: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
          period: Type.Optional(StringEnum(['Second', 'Minute', 'Hour'])),
        },
        { additionalProperties: false },
      ),
    ),
    security: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          headerKey: Type.Optional(Type.Union([HeaderName, Type.Literal('')])),
          headerValue: Type.Optional(Type.String({ maxLength: 4096 })),
        },
        { additionalProperties: false },
      ),
    ),
    defaultResponse: Type.Optional(Nullable(DefaultResponse)),
    rules: Type.Optional(
      Type.Object({ enabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
    ),
    crud: Type.Optional(
      Type.Object(
        {
          autoDelete: Type.Optional(
            Type.Boolean({
              description: "CRUD items older than the endpoint's history retention are deleted",
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    customDomain: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          domain: Type.Optional(
            Type.Union([HostName, Type.Null()], {
              description:
                'requests whose Host is this domain (any port) reach this endpoint; null removes it',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    mtls: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(
            Type.Boolean({
              description: "require a client certificate made by the endpoint's CA (needs TLS)",
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    locale: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 20,
        pattern: '^[a-z]{2,3}(_[A-Za-z0-9]+)*$',
        examples: ['de_AT'],
      }),
    ),
    plan: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    faults: Type.Optional(
      Type.Object(
        {
          proxy: Type.Optional(Nullable(FaultName)),
          tunnel: Type.Optional(Nullable(FaultName)),
        },
        {
          additionalProperties: false,
          description:
            'a fault written instead of every proxied (or tunnelled) answer, once the upstream has answered; null removes it',
        },
      ),
    ),
    openapi: Type.Optional(
      Type.Object(
        {
          validation: Type.Optional(
            StringEnum(CONTRACT_MODES, {
              description:
                'requests and answers checked against the uploaded OpenAPI document: off, report (recorded with the request) or enforce (a request that breaks it is refused before the rules)',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    chaos: Type.Optional(
      Type.Object(
        {
          percent: Type.Optional(
            Type.Number({
              minimum: 0,
              maximum: 100,
              description: 'share of the requests answered past the guards that get the chaos',
            }),
          ),
          fault: Type.Optional(Nullable(FaultName)),
          delay: Type.Optional(Nullable(DelayValue)),
          seed: Type.Optional(
            Nullable(
              Type.Integer({
                minimum: 0,
                maximum: CHAOS_SEED_MAX,
                description:
                  'with a seed, which requests are hit (and the delays drawn) repeat from each settings change',
              }),
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, title: 'SettingsPatch' },
);

/** The settings as a GET shows them: every field, defaults filled in. */
export const Settings = Type.Object(
  {
    proxy: Type.Object({
      targetUrl: Type.Optional(Type.String({ description: 'left out when not set' })),
      ignoreSSLErrors: Type.Boolean(),
      record: Type.Boolean(),
    }),
    localTunnel: Type.Boolean(),
    cors: Type.Object({ origins: Type.Array(Type.String()) }),
    rateLimit: Type.Object({
      enabled: Type.Boolean(),
      rate: Type.Integer(),
      period: StringEnum(['Second', 'Minute', 'Hour']),
    }),
    security: Type.Object({ enabled: Type.Boolean(), headerKey: Type.String(), headerValue: Type.String() }),
    defaultResponse: Type.Object(
      {
        status: Status,
        headers: Type.Union([HeaderMap, HeaderList]),
        body: Type.Optional(Body),
      },
      { description: '`{ "status": 200, "headers": {} }` (no body) while the built-in answer is used' },
    ),
    rules: Type.Object({ enabled: Type.Boolean() }),
    crud: Type.Object({ autoDelete: Type.Boolean() }),
    customDomain: Type.Object({
      enabled: Type.Boolean(),
      domain: Type.Optional(Type.String({ description: 'left out when not set' })),
    }),
    mtls: Type.Object({ enabled: Type.Boolean() }),
    locale: Type.String(),
    plan: Type.String(),
    faults: Type.Object({
      proxy: Type.Optional(FaultName),
      tunnel: Type.Optional(FaultName),
    }),
    openapi: Type.Object({ validation: StringEnum(CONTRACT_MODES) }),
    chaos: Type.Object({
      percent: Type.Number(),
      fault: Type.Optional(FaultName),
      delay: Type.Optional(DelayValue),
      seed: Type.Optional(Type.Integer()),
    }),
  },
  { title: 'Settings' },
);

export type SettingsPatch = Static<typeof SettingsPatch>;
export type Settings = Static<typeof Settings>;

/** Nested objects merged field by field by PATCH (defaultResponse too, its headers replaced whole). */
const NESTED = [
  'proxy',
  'cors',
  'rateLimit',
  'security',
  'defaultResponse',
  'rules',
  'crud',
  'customDomain',
  'mtls',
  'faults',
  'openapi',
  'chaos',
] as const;

/** The defaults of every setting but the plan, which comes from the configuration. */
export function defaultSettings(plan: string): Settings {
  return {
    proxy: { ignoreSSLErrors: false, record: false },
    localTunnel: false,
    cors: { origins: [] },
    rateLimit: { enabled: false, rate: 100, period: 'Minute' },
    security: { enabled: false, headerKey: '', headerValue: '' },
    defaultResponse: { status: 200, headers: {} },
    rules: { enabled: true },
    crud: { autoDelete: false },
    customDomain: { enabled: false },
    mtls: { enabled: false },
    locale: 'en',
    plan,
    faults: {},
    openapi: { validation: 'report' },
    chaos: { percent: 0 },
  };
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `o` without its null fields: a string that is not set is left out, never null. */
function withoutNulls(o: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) if (v !== null) out[k] = v;
  return out;
}

/**
 * Applies a validated patch to the stored settings: nested objects merge field by field, and a null
 * field (`proxy.targetUrl`, `customDomain.domain`) or a null `defaultResponse` removes what was set.
 * Fields outside the schema (the echo endpoint's `builtIn`) are kept.
 */
export function mergeSettings(stored: JsonObject, patch: SettingsPatch): JsonObject {
  const out: JsonObject = { ...stored };
  for (const [k, v] of Object.entries(patch) as [string, Json | undefined][]) {
    if (v === undefined) continue;
    if (k === 'defaultResponse' && v === null) delete out[k];
    else if ((NESTED as readonly string[]).includes(k) && isObject(v))
      out[k] = withoutNulls({ ...(isObject(out[k]) ? out[k] : {}), ...v });
    else out[k] = v;
  }
  return out;
}

/** The stored settings completed with the defaults: what GET answers and what the pipeline should assume. */
export function effectiveSettings(stored: JsonObject, plan: string): Settings {
  const d = defaultSettings(plan) as unknown as JsonObject;
  const out: JsonObject = { ...d };
  for (const k of Object.keys(d)) {
    const v = stored[k];
    if (v === undefined || v === null) continue;
    // Settings stored by earlier versions may hold nulls (`proxy.targetUrl`): they read as "not set".
    out[k] =
      (NESTED as readonly string[]).includes(k) && isObject(v) && isObject(d[k])
        ? { ...d[k], ...withoutNulls(v) }
        : v;
  }
  out['plan'] = plan;
  return out as unknown as Settings;
}

/**
 * The endpoint's own default response, or undefined for the built-in answer. What GET shows for the
 * built-in one (`{ status: 200, headers: {} }`, no body), sent back as it is (an exported
 * configuration re-imported), keeps the built-in answer; an empty 200 needs `body: ""`.
 */
export function customDefaultResponse(
  r: Settings['defaultResponse'] | undefined,
): Settings['defaultResponse'] | undefined {
  if (!isObject(r)) return undefined;
  const noHeaders =
    r.headers === undefined ||
    (Array.isArray(r.headers) ? r.headers.length : Object.keys(r.headers).length) === 0;
  return r.body === undefined && (r.status === undefined || r.status === 200) && noHeaders ? undefined : r;
}
