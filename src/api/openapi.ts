/**
 * The API's own OpenAPI 3.1 document (GET /openapi.json) and reference page (GET /docs), both public.
 * Nothing is written by hand: an onRoute hook, registered before every route group, collects each
 * route that has a `schema`, and the document is built from those same TypeBox schemas that validate
 * the requests. Route schemas may carry `tags`, `summary`, `description`, and `hide: true`.
 */
import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { API_DOCS_HEADERS, API_DOCS_HTML } from '../dashboard/index.js';
import { ErrorBody, NoQuery } from './schemas/common.js';

type JsonSchema = Record<string, unknown>;

declare module 'fastify' {
  /** Documentation fields of a route schema, read by the OpenAPI collector. */
  interface FastifySchema {
    tags?: string[];
    summary?: string;
    description?: string;
    /** Leave the route out of the document. */
    hide?: boolean;
  }
}

interface RouteSchema {
  tags?: string[];
  summary?: string;
  description?: string;
  hide?: boolean;
  params?: JsonSchema;
  querystring?: JsonSchema;
  body?: JsonSchema;
  response?: Record<string, JsonSchema>;
}

interface CollectedRoute {
  method: string;
  url: string;
  schema: RouteSchema;
}

const PREFIX = '/api/v2';
const PUBLIC = new Set([`${PREFIX}/openapi.json`, `${PREFIX}/docs`]);

const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** A schema as plain JSON: TypeBox's symbol keys dropped. */
function plain(schema: unknown): JsonSchema {
  return JSON.parse(JSON.stringify(schema ?? {})) as JsonSchema;
}

/** `/api/v2/endpoints/:ep/rules` → `/endpoints/{ep}/rules`. */
function openapiPath(url: string): string {
  const rel = url.startsWith(PREFIX) ? url.slice(PREFIX.length) || '/' : url;
  return rel.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function operationId(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return [method.toLowerCase(), ...words.map((w) => w[0]!.toUpperCase() + w.slice(1))].join('');
}

function parameters(schema: JsonSchema | undefined, where: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const s = plain(schema);
  const props = (s['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((s['required'] as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, prop]) => {
    const { description, ...rest } = prop;
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(description !== undefined ? { description } : {}),
      schema: rest,
    };
  });
}

function operation(route: CollectedRoute): JsonSchema {
  const s = route.schema;
  const path = openapiPath(route.url);
  const responses: Record<string, unknown> = {};
  for (const [code, schema] of Object.entries(s.response ?? {})) {
    responses[code] = {
      description: STATUS_CODES[Number(code)] ?? code,
      content: { 'application/json': { schema: plain(schema) } },
    };
  }
  responses['default'] ??= { $ref: '#/components/responses/Error' };
  return {
    operationId: operationId(route.method, path),
    ...(s.tags ? { tags: s.tags } : {}),
    ...(s.summary ? { summary: s.summary } : {}),
    ...(s.description ? { description: s.description } : {}),
    ...(PUBLIC.has(route.url) ? { security: [] } : {}),
    parameters: [...parameters(s.params, 'path'), ...parameters(s.querystring, 'query')],
    ...(s.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: plain(s.body) } } } }
      : {}),
    responses,
  };
}

/** Builds the OpenAPI 3.1 document of the collected routes. */
export function buildDocument(routes: CollectedRoute[]): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  const tags: string[] = [];
  for (const r of routes) {
    const p = openapiPath(r.url);
    (paths[p] ??= {})[r.method.toLowerCase()] = operation(r);
    for (const t of r.schema.tags ?? []) if (!tags.includes(t)) tags.push(t);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Mockingbird management API',
      version,
      description:
        'Endpoints, settings, rules, request history, live events and API keys of a Mockingbird server. ' +
        'Errors are always `{ "error": { "code", "message", "details" } }`.',
    },
    servers: [{ url: PREFIX }],
    security: [{ apiKey: [] }],
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'The API key, raw (`mb_…`) or as `Bearer mb_…`.',
        },
      },
      schemas: { Error: plain(ErrorBody) },
      responses: {
        Error: {
          description: 'An error (400, 401, 403, 404, 409 …)',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    },
  };
}

/** Registers the collector (first, so that it sees every later route) and the two public routes. */
export async function openapiApi(app: FastifyInstance): Promise<void> {
  const routes: CollectedRoute[] = [];
  app.addHook('onRoute', (opts: RouteOptions) => {
    const schema = opts.schema as RouteSchema | undefined;
    if (!schema || schema.hide) return;
    const methods = Array.isArray(opts.method) ? opts.method : [opts.method];
    // HEAD routes are Fastify's automatic twins of GET routes.
    for (const method of methods) if (method !== 'HEAD') routes.push({ method, url: opts.url, schema });
  });

  let cached: { count: number; doc: JsonSchema } | undefined;
  /** Built on first use, once every route is registered; rebuilt if routes were added since. */
  function current() {
    if (!cached || cached.count !== routes.length) {
      const doc = buildDocument(routes);
      cached = { count: routes.length, doc };
    }
    return cached;
  }

  await app.register(async (s) => {
    s.get(
      '/openapi.json',
      {
        schema: {
          tags: ['Reference'],
          summary: 'This OpenAPI 3.1 document (no key needed)',
          querystring: NoQuery,
        },
      },
      async () => current().doc,
    );
    s.get(
      '/docs',
      {
        schema: {
          tags: ['Reference'],
          summary: 'A reference page of every operation (no key needed)',
          querystring: NoQuery,
        },
      },
      // Swagger UI, served from this origin (the dashboard's build copies it), reads /openapi.json.
      async (_request, reply) => reply.headers(API_DOCS_HEADERS).send(API_DOCS_HTML),
    );
  });
}
