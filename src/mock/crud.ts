/**
 * The `crud` rule action (SPEC §4, issue 13 part 3): the rule's path becomes a persistent REST
 * collection of JSON objects. Routes, relative to the collection's path:
 *   GET /            newest first, `?limit` (1..100, default 100) and `?offset`; `X-Total-Count`;
 *                    bounded in bytes too, with a `Link` to the next page (crud-list.ts)
 *   POST /           201 with the item; its id taken from `idField`, generated (a UUID) when missing;
 *                    an id already taken is 409 (never an overwrite: two creations of one id, one wins)
 *   GET /:id         the item
 *   PUT /:id         replaces the item (200); PATCH /:id merges the body's top-level fields into it
 *   DELETE /:id      200 with the item removed
 * An unknown id is 404, a body that is not a JSON object 400, a method the route lacks 405, all in
 * the JSON error shape of SPEC §4. Items live in the store, per endpoint and collection path, so they
 * survive restarts and are shared by every instance. Answers are recorded with behavior `crud`.
 *
 * Where the collection lives, from the rule's first path condition with one of these operators:
 *   `starts_with /users`  the collection is `/users`: `/users` and `/users/` are the collection,
 *                         `/users/<id>` an item; any other path the rule matches (`/users/1/x`,
 *                         `/usersX`) is 404
 *   `equals /users`       the collection is `/users`; only list and create (`/users/1` does not match)
 *   `template /shops/:shop/items/:id`
 *                         a template ending in a parameter: the last segment is the item id, the
 *                         path before it the collection, so each shop has its own `items`; a
 *                         template ending in text (`/shops/:shop/items`) names the collection itself
 * A trailing slash is ignored; the id segment is percent-decoded. A rule without such a condition is
 * refused when saved (rule-model.ts).
 */
import { randomUUID } from 'node:crypto';
import type { MockDeps } from './deps.js';
import type { Exchange, Outcome } from '../endpoint/index.js';
import type { ErrorCode, ErrorDetail } from '../errors.js';
import { errorBody } from '../errors.js';
import { JSON_TYPE, type AnswerHeaders } from '../http/index.js';
import type { CrudCaps, CrudRefusal, Json, JsonObject } from '../store/index.js';
import type { CompiledAction } from './actions.js';
import { listAnswer, type CrudListDeps } from './crud-list.js';
import { isCollectionPath, type Condition, type Rule } from './rule-model.js';

/** Items a list answers at most, and by default. */
export const CRUD_LIST_MAX = 100;
/** Longest item id, in characters. */
export const CRUD_ID_MAX = 200;

/** What a request addresses: the collection (no id) or one item of it. */
export interface CrudTarget {
  collection: string;
  id?: string;
}

function trimSlash(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Compiles where a rule's collection lives: a function from a path the rule matched to the
 * collection and item it addresses, or undefined when the path is no route of the collection.
 * Undefined when the rule has no path condition that names a collection.
 */
export function collectionLocator(
  conditions: readonly Condition[],
): ((pathname: string) => CrudTarget | undefined) | undefined {
  const c = conditions.find(isCollectionPath) as { operator: string; value: string } | undefined;
  if (!c) return undefined;
  if (c.operator === 'template') {
    const endsInParam = trimSlash(c.value).split('/').pop()!.startsWith(':');
    return (pathname) => {
      const p = trimSlash(pathname);
      if (!endsInParam) return { collection: p };
      const cut = p.lastIndexOf('/');
      return { collection: cut === 0 ? '/' : p.slice(0, cut), id: decode(p.slice(cut + 1)) };
    };
  }
  const base = c.value === '/' ? '' : trimSlash(c.value);
  const collection = base === '' ? '/' : base;
  return (pathname) => {
    const p = trimSlash(pathname);
    if (p === collection) return { collection };
    if (c.operator === 'equals' || !p.startsWith(base + '/')) return undefined;
    const rest = p.slice(base.length + 1);
    if (rest === '' || rest.includes('/')) return undefined;
    return { collection, id: decode(rest) };
  };
}

function json(status: number, body: Json, headers: AnswerHeaders = {}): Outcome['answer'] {
  return {
    status,
    headers: Object.assign(Object.create(null) as AnswerHeaders, headers, { 'content-type': JSON_TYPE }),
    body: JSON.stringify(body),
  };
}

function failure(
  status: number,
  code: ErrorCode,
  message: string,
  details?: ErrorDetail[],
  headers: AnswerHeaders = {},
) {
  return json(status, errorBody(code, message, details) as unknown as Json, headers);
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The request's body as a JSON object, or undefined. JSON is read whatever the Content-Type says. */
function bodyObject(x: Exchange): JsonObject | undefined {
  const b = x.request.body;
  if (b.kind === 'json') return isObject(b.value) ? b.value : undefined;
  if (x.request.rawBody.length === 0) return undefined;
  try {
    const v: unknown = JSON.parse(x.request.rawBody.toString('utf8'));
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** An id as the body gives it: a non-empty string or a finite number; undefined when absent. */
function bodyId(v: Json | undefined): string | undefined | Error {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'string' && v !== '' && v.length <= CRUD_ID_MAX) return v;
  return new Error(`An id is a number or a string of 1 to ${CRUD_ID_MAX} characters`);
}

/** An own field (never one of the prototype's: `idField` may be any name, `__proto__` included). */
function field(o: JsonObject, key: string): Json | undefined {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/** The object without `key` (fromEntries defines fields: a `__proto__` field stays a field). */
function without(o: JsonObject, key: string): JsonObject {
  return Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));
}

/** A query parameter as a whole number in [min, max]; `fallback` when absent. */
function intParam(
  x: Exchange,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number | ErrorDetail {
  const raw = x.request.query[name];
  if (raw === undefined) return fallback;
  if (typeof raw === 'string' && /^\d{1,9}$/.test(raw)) {
    const n = Number(raw);
    if (n >= min && n <= max) return n;
  }
  return {
    path: `/${name}`,
    message: `Must be a whole number from ${min} to ${max}`,
    received: String(raw),
  };
}

/** Compiles a rule's `crud` action into its collection's routes. */
export function compileCrud(
  ctx: Pick<MockDeps, 'config' | 'crudLists' | 'now' | 'store'>,
  rule: Pick<Rule, 'id' | 'action' | 'conditions'>,
): CompiledAction {
  const idField = (rule.action.type === 'crud' ? rule.action.idField : undefined) ?? 'id';
  const locate = collectionLocator(rule.conditions);
  const c = ctx.config;
  const caps: CrudCaps = {
    maxItems: c.crudMaxItems,
    maxEndpointItems: c.crudMaxEndpointItems,
    maxEndpointBytes: c.crudMaxEndpointBytes,
    maxItemBytes: c.crudMaxItemBytes,
  };

  const refused = (why: CrudRefusal, id: string) => {
    switch (why) {
      case 'conflict':
        return failure(409, 'conflict', `An item with ${idField} "${id}" already exists.`);
      case 'too_large':
        return failure(
          413,
          'payload_too_large',
          `An item may have at most ${caps.maxItemBytes} bytes of JSON.`,
        );
      case 'collection_full':
        return failure(409, 'conflict', `The collection holds its maximum of ${caps.maxItems} items.`);
      case 'endpoint_full':
        return failure(
          409,
          'conflict',
          `The endpoint's collections hold their maximum (${caps.maxEndpointItems} items, ${caps.maxEndpointBytes} bytes).`,
        );
    }
  };
  const notFound = (id: string) => failure(404, 'not_found', `No item with ${idField} "${id}".`);
  const notObject = () =>
    failure(400, 'validation_error', 'The body must be a JSON object.', [
      { path: '', message: 'Must be a JSON object' },
    ]);
  const badId = (message: string, received: Json | undefined) =>
    failure(400, 'validation_error', message, [
      { path: `/${idField}`, message, received: JSON.stringify(received) },
    ]);
  const notAllowed = (allow: string) =>
    failure(405, 'method_not_allowed', `This route of the collection takes ${allow}.`, undefined, {
      allow,
    });

  const store = ctx.store;
  const lists: CrudListDeps = {
    store,
    budget: ctx.crudLists,
    maxBytes: c.crudListMaxBytes,
    maxItemBytes: c.crudMaxItemBytes,
  };
  const answer = async (x: Exchange): Promise<Outcome['answer']> => {
    const t = locate?.(x.request.pathname);
    if (!t) return failure(404, 'not_found', 'This path is not a route of the collection.');
    const ep = x.endpoint.record.name;
    const method = x.request.method === 'HEAD' ? 'GET' : x.request.method;
    const now = ctx.now();

    if (t.id === undefined) {
      if (method === 'GET') {
        const limit = intParam(x, 'limit', 1, CRUD_LIST_MAX, CRUD_LIST_MAX);
        const offset = intParam(x, 'offset', 0, 999_999_999, 0);
        const details = [limit, offset].filter((v): v is ErrorDetail => typeof v !== 'number');
        if (details.length > 0) return failure(400, 'validation_error', 'The query is not valid.', details);
        return listAnswer(lists, x, t.collection, limit as number, offset as number);
      }
      if (method === 'POST') {
        const body = bodyObject(x);
        if (!body) return notObject();
        const given = bodyId(field(body, idField));
        if (given instanceof Error) return badId(given.message, field(body, idField));
        const id = given ?? randomUUID();
        const data: JsonObject = {
          [idField]: given === undefined ? id : field(body, idField)!,
          ...without(body, idField),
        };
        const r = await store.insertCrudItem(
          ep,
          t.collection,
          { id, data, createdAt: now, updatedAt: now },
          caps,
        );
        return r.ok ? json(201, data) : refused(r.why, id);
      }
      return notAllowed('GET, HEAD, POST');
    }

    const id = t.id;
    if (id.length > CRUD_ID_MAX) return notFound(id.slice(0, CRUD_ID_MAX) + '…');
    switch (method) {
      case 'GET': {
        const item = await store.getCrudItem(ep, t.collection, id);
        return item ? json(200, item.data) : notFound(id);
      }
      case 'DELETE': {
        const item = await store.deleteCrudItem(ep, t.collection, id);
        return item ? json(200, item.data) : notFound(id);
      }
      case 'PUT':
      case 'PATCH': {
        const body = bodyObject(x);
        if (!body) return notObject();
        const given = bodyId(field(body, idField));
        if (given instanceof Error || (given !== undefined && given !== id))
          return badId(
            `The body's ${idField} must be the path's id ("${id}") or left out.`,
            field(body, idField),
          );
        const rest = without(body, idField);
        // The stored id keeps its type (a number stays a number).
        const change =
          method === 'PUT'
            ? (old: JsonObject): JsonObject => ({ [idField]: field(old, idField) ?? id, ...rest })
            : (old: JsonObject): JsonObject => ({ ...old, ...rest, [idField]: field(old, idField) ?? id });
        const r = await store.updateCrudItem(ep, t.collection, id, change, now, caps);
        if (!r) return notFound(id);
        return r.ok ? json(200, r.item.data) : refused(r.why, id);
      }
      default:
        return notAllowed('GET, HEAD, PUT, PATCH, DELETE');
    }
  };

  return async (x) => ({ behavior: 'crud', ruleId: rule.id, answer: await answer(x) });
}
