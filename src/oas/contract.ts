/**
 * What an operation of a compiled spec asks of requests and answers (SPEC §7, contract checking),
 * read out of Swagger 2.0 or OpenAPI 3.x into one shape on the operation's first checked request and
 * kept beside it (a WeakMap on the Operation: an upload that replaces the spec drops it). Only where
 * the schemas are (JSON pointers) is kept; their validators are compiled when first used
 * (contract-schemas.ts). Media-type ranges are matched here for both directions.
 */
import type { CompiledSpec, Operation } from './compile.js';
import { HTTP_METHODS } from './document.js';
import { pointer } from './json-schema.js';
import { deref, followRef, isObject, type JsonObject } from './refs.js';
import { securityOf, type SecurityAlternatives } from './security.js';
import type { Checker } from './contract-schemas.js';

export type ParamIn = 'path' | 'query' | 'header' | 'cookie' | 'formData';

export interface ParamContract {
  name: string;
  in: ParamIn;
  required: boolean;
  /** The pointer of its schema; undefined when its value is not checked. */
  schemaAt?: string;
  /** The schema is the parameter itself (Swagger 2.0). */
  own?: boolean;
  /** How an array value arrives: `multi` (the name repeated) or the separator; undefined: not an array. */
  split?: 'multi' | ',' | ' ' | '|' | '\t';
  /** OpenAPI 3's `style: deepObject`: the value is the object of `name[key]=…` parameters. */
  deepObject?: boolean;
  /** Its validator, once first used (kept here: no look-up per request). */
  checker?: Checker;
}

export interface MediaContract {
  /** As the document names it: `application/json`, `application/*`, `*\/*`. */
  type: string;
  /** `type` lower-cased without parameters, once first needed. */
  essence?: string;
  schemaAt?: string;
  /** Its validators once first used: of a JSON body, a form body, an answer's body. */
  checkers?: { json?: Checker; form?: Checker; response?: Checker };
}

export interface BodyContract {
  required: boolean;
  /** The media types it takes; empty: any. */
  media: MediaContract[];
  /** Swagger 2.0's formData parameters are the body's fields (checked as parameters). */
  formFields: boolean;
}

export interface ResponseContract {
  key: string;
  media: MediaContract[];
}

export interface OperationContract {
  params: ParamContract[];
  body?: BodyContract;
  security: SecurityAlternatives;
  responses: ResponseContract[];
  /** The response for each status answered so far (null: none describes it); statuses are 100-599. */
  byStatus?: Map<number, ResponseContract | null>;
}

/** Headers OpenAPI says are never parameters (they are described elsewhere). */
const RESERVED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

const SEPARATORS: Record<string, ParamContract['split']> = {
  csv: ',',
  ssv: ' ',
  tsv: '\t',
  pipes: '|',
  multi: 'multi',
};

function isArraySchema(root: JsonObject, schema: unknown): boolean {
  const s = deref(root, schema);
  if (!isObject(s)) return false;
  return s['type'] === 'array' || (Array.isArray(s['type']) && s['type'].includes('array'));
}

function isObjectSchema(root: JsonObject, schema: unknown): boolean {
  const s = deref(root, schema);
  if (!isObject(s)) return false;
  return s['type'] === 'object' || (s['type'] === undefined && isObject(s['properties']));
}

/** An OpenAPI 3 parameter; undefined for one whose value cannot be read as text (objects but deepObject). */
function openapiParam(
  root: JsonObject,
  p: JsonObject,
  at: string,
  where: ParamIn,
): ParamContract | undefined {
  const name = p['name'] as string;
  const out: ParamContract = { name, in: where, required: where === 'path' || p['required'] === true };
  const schema = p['schema'];
  if (schema === undefined) return out;
  const style =
    typeof p['style'] === 'string' ? p['style'] : where === 'query' || where === 'cookie' ? 'form' : 'simple';
  const explode = typeof p['explode'] === 'boolean' ? p['explode'] : style === 'form';
  if (isObjectSchema(root, schema)) {
    if (style !== 'deepObject' || where !== 'query') return undefined;
    return { ...out, schemaAt: `${at}/schema`, deepObject: true };
  }
  out.schemaAt = `${at}/schema`;
  if (isArraySchema(root, schema))
    out.split =
      style === 'spaceDelimited'
        ? ' '
        : style === 'pipeDelimited'
          ? '|'
          : style === 'form' && explode
            ? 'multi'
            : ',';
  return out;
}

function swaggerParam(p: JsonObject, at: string, where: ParamIn): ParamContract {
  const name = p['name'] as string;
  const out: ParamContract = { name, in: where, required: where === 'path' || p['required'] === true };
  if (p['type'] === 'file') return out;
  out.schemaAt = at;
  out.own = true;
  if (p['type'] === 'array')
    out.split = SEPARATORS[typeof p['collectionFormat'] === 'string' ? p['collectionFormat'] : 'csv'] ?? ',';
  return out;
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}

/** The media of an OpenAPI 3 `content` map at `at`. */
function contentOf(content: unknown, at: string): MediaContract[] {
  if (!isObject(content)) return [];
  return Object.entries(content).map(([type, m]) => {
    const media: MediaContract = { type };
    if (isObject(m) && m['schema'] !== undefined) media.schemaAt = `${at}/content${pointer(type)}/schema`;
    return media;
  });
}

function read(spec: CompiledSpec, op: Operation): OperationContract {
  const root = spec.root;
  const swagger = root['swagger'] === '2.0';
  const paths = isObject(root['paths']) ? root['paths'] : {};
  const [item, itemAt] = followRef(root, paths[op.path], pointer('paths', op.path));
  const method = HTTP_METHODS.find((m) => m.toUpperCase() === op.method) ?? op.method.toLowerCase();
  const raw = isObject(item) ? item[method] : undefined;
  const o: JsonObject = isObject(raw) ? raw : {};
  const opAt = `${itemAt}${pointer(method)}`;
  const out: OperationContract = {
    params: [],
    security: securityOf(root, o, (v) => deref(root, v)),
    responses: [],
  };

  // Path-item parameters, then the operation's, which replace one of the same name and place.
  const byKey = new Map<string, [JsonObject, string]>();
  const collect = (list: unknown, at: string): void => {
    if (!Array.isArray(list)) return;
    list.forEach((rawParam, i) => {
      const [p, pAt] = followRef(root, rawParam, `${at}/parameters/${i}`);
      if (isObject(p) && typeof p['name'] === 'string' && typeof p['in'] === 'string')
        byKey.set(`${p['in']}:${p['name']}`, [p, pAt]);
    });
  };
  if (isObject(item)) collect(item['parameters'], itemAt);
  collect(o['parameters'], opAt);
  const consumes = strings(o['consumes']) ?? strings(root['consumes']) ?? [];
  let formFields = false;
  for (const [p, at] of byKey.values()) {
    const where = p['in'] as string;
    if (where === 'header' && RESERVED_HEADERS.has((p['name'] as string).toLowerCase())) continue;
    if (swagger && where === 'body') {
      const schemaAt = p['schema'] !== undefined ? `${at}/schema` : undefined;
      const types = consumes.length > 0 ? consumes : ['application/json'];
      out.body = {
        required: p['required'] === true,
        media: types.map((type) => (schemaAt ? { type, schemaAt } : { type })),
        formFields: false,
      };
      continue;
    }
    if (!['path', 'query', 'header', 'cookie', 'formData'].includes(where)) continue;
    if (swagger) {
      out.params.push(swaggerParam(p, at, where as ParamIn));
      formFields ||= where === 'formData';
    } else if (where !== 'formData') {
      const c = openapiParam(root, p, at, where as ParamIn);
      if (c) out.params.push(c);
    }
  }
  if (formFields)
    out.body = {
      required: false,
      media: (consumes.length > 0
        ? consumes
        : ['application/x-www-form-urlencoded', 'multipart/form-data']
      ).map((type) => ({ type })),
      formFields: true,
    };

  if (!swagger) {
    const [body, bodyAt] = followRef(root, o['requestBody'], `${opAt}/requestBody`);
    if (isObject(body))
      out.body = {
        required: body['required'] === true,
        media: contentOf(body['content'], bodyAt),
        formFields: false,
      };
  }

  const produces = strings(o['produces']) ?? strings(root['produces']) ?? [];
  const responses = isObject(o['responses']) ? o['responses'] : {};
  for (const key of Object.keys(responses)) {
    if (key.startsWith('x-')) continue;
    const [r, rAt] = followRef(root, responses[key], `${opAt}/responses${pointer(key)}`);
    const res: ResponseContract = { key, media: [] };
    if (isObject(r)) {
      if (!swagger) res.media = contentOf(r['content'], rAt);
      else if (r['schema'] !== undefined)
        res.media = (produces.length > 0 ? produces : ['application/json']).map((type) => ({
          type,
          schemaAt: `${rAt}/schema`,
        }));
    }
    out.responses.push(res);
  }
  return out;
}

const contracts = new WeakMap<Operation, OperationContract>();

/** What `op` asks, read on first use and kept. */
export function contractOf(spec: CompiledSpec, op: Operation): OperationContract {
  let c = contracts.get(op);
  if (!c) contracts.set(op, (c = read(spec, op)));
  return c;
}

/** `type/subtype` of a Content-Type, lower-cased, without parameters. */
export function essence(contentType: string): string {
  const semi = contentType.indexOf(';');
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/**
 * True when `actual` (an essence) is in the range `declared`: equal, `*\/*`, `type/*`, or a suffix
 * range such as `application/*+json` (any `application/…+json`).
 */
export function inRange(declared: string, actual: string): boolean {
  const d = essence(declared);
  if (d === actual || d === '*/*' || d === '*') return true;
  const [dt, ds = ''] = d.split('/');
  const [at, as = ''] = actual.split('/');
  if (dt !== at && dt !== '*') return false;
  if (ds === '*') return true;
  return ds.startsWith('*+') && as.endsWith(ds.slice(1));
}

/** The media of `media` that `actual` fits: an exact one before a range. */
export function pickMedia(media: MediaContract[], actual: string): MediaContract | undefined {
  return (
    media.find((m) => (m.essence ??= essence(m.type)) === actual) ??
    media.find((m) => inRange(m.type, actual))
  );
}

/** JSON, and `+json` types. */
export function isJsonMedia(essenceType: string): boolean {
  return (
    essenceType === 'application/json' || /^[a-z0-9!#$&^_.-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(essenceType)
  );
}

/** The media types of a list, for messages. */
export function typesOf(media: MediaContract[]): string {
  return media.map((m) => m.type).join(', ');
}
