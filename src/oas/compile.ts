/**
 * A stored OpenAPI document compiled for serving, once per upload: its operations with their
 * responses read out of Swagger 2.0 or OpenAPI 3.x into one shape, and its path templates
 * (`/pets/{petId}`, `/files/{name}.{ext}`) in a tree of path segments, and the schemas of its
 * responses expanded (flatten.ts: composition resolved within OAS_SCHEMA_BUDGET, or SchemaBudgetError), so that finding the operation
 * of a request walks the request's segments, never every operation. Concrete segments win over
 * templated ones (`/pets/mine` before `/pets/{id}`), as OpenAPI asks. A request may carry the base
 * path of the document's servers (`/v2/pets` for `basePath: /v2`) or not (`/pets`). A path with a
 * fragment (`/#Action=DescribeInstances`, query APIs as APIs.guru writes them) is matched by the
 * request's query (`/?Action=DescribeInstances`).
 */
import { deref, isObject, type JsonObject } from './refs.js';
import { HTTP_METHODS } from './document.js';
import { expandEveryComposition, SchemaExpander, type Expanded } from './flatten.js';
import { OAS_SCHEMA_BUDGET_DEFAULT } from '../config.js';
import { timeSlicer, type Slicer } from '../jobs/index.js';

export interface MediaSpec {
  /** `application/json`, `text/plain` … as the document names it. */
  type: string;
  /** The schema, expanded. */
  schema: Expanded;
  /** The media type's single example, if any. */
  example?: { value: unknown };
  /** Named examples (OpenAPI 3) or examples by media type (Swagger 2.0). */
  examples: Map<string, unknown>;
}

export interface HeaderSpec {
  name: string;
  /** The schema, expanded. */
  schema: Expanded;
  example?: { value: unknown };
}

export interface ResponseSpec {
  /** `200`, `2XX`, `default`, as the document writes it. */
  key: string;
  contents: MediaSpec[];
  headers: HeaderSpec[];
}

export interface Operation {
  method: string;
  path: string;
  operationId?: string;
  responses: ResponseSpec[];
}

export interface OperationMatch {
  op: Operation;
  params: Record<string, string>;
}

export interface CompiledSpec {
  /** The document, for `$ref`s of schemas while generating. */
  root: JsonObject;
  intelligenceMock: boolean;
  operationCount: number;
  /** Work units expanding the responses' schemas cost (at most OAS_SCHEMA_BUDGET). */
  schemaUnits: number;
  /**
   * The operation for `method`, `pathname` and (for operations told apart by a query parameter,
   * `/#Action=…`) `query`, or undefined when none fits.
   */
  match(method: string, pathname: string, query?: Query): OperationMatch | undefined;
}

interface Param {
  /** null: the whole segment is the parameter. */
  re: RegExp | null;
  names: string[];
  node: Node;
}

interface Node {
  literal: Map<string, Node>;
  params: Param[];
  ops?: Map<string, Operation>;
  /** Operations told apart by a query parameter (`/#Action=DescribeInstances`), by method. */
  queryOps?: { method: string; key: string; value: string; op: Operation }[];
}

/** A query parameter, one value or several. */
export type Query = Readonly<Record<string, string | string[]>>;

/**
 * `/#Action=DescribeInstances`: the form the APIs.guru directory gives the operations of query APIs
 * (Amazon's), told apart by a query parameter, which a request carries as `/?Action=DescribeInstances`.
 * Answers the path and the parameter, or only the path when it has no such fragment.
 */
function splitFragment(path: string): { path: string; key?: string; value?: string } {
  const hash = path.indexOf('#');
  if (hash === -1) return { path };
  const m = /^([^=&]+)=([^&]*)$/.exec(path.slice(hash + 1));
  return m
    ? { path: path.slice(0, hash), key: decode(m[1]!), value: decode(m[2]!) }
    : { path: path.slice(0, hash) };
}

const newNode = (): Node => ({ literal: new Map(), params: [] });

/** Parameters in one path segment past which the template is not served (its regex would be costly). */
const MAX_SEGMENT_PARAMS = 4;

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function segmentsOf(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Adds `path` (a template) to the tree; returns the node its operations go to, or undefined. */
function insert(root: Node, path: string): Node | undefined {
  let node = root;
  for (const seg of segmentsOf(path)) {
    const parts = seg.split(/(\{[^{}/]+\})/).filter((p) => p !== '');
    const names = parts.filter((p) => /^\{.+\}$/.test(p)).map((p) => p.slice(1, -1));
    if (names.length === 0) {
      const lit = decode(seg);
      let next = node.literal.get(lit);
      if (!next) node.literal.set(lit, (next = newNode()));
      node = next;
      continue;
    }
    if (names.length > MAX_SEGMENT_PARAMS) return undefined;
    const whole = parts.length === 1;
    const source = whole
      ? ''
      : '^' + parts.map((p) => (/^\{.+\}$/.test(p) ? '([^/]+?)' : escapeRegex(p))).join('') + '$';
    // Keyed by names as well: `/pets/{id}` and `/pets/{petId}/photos` each name their own parameter.
    const same = (p: Param): boolean =>
      (p.re?.source ?? '') === (whole ? '' : new RegExp(source).source) &&
      p.names.join('/') === names.join('/');
    let param = node.params.find(same);
    if (!param) {
      param = { re: whole ? null : new RegExp(source), names, node: newNode() };
      node.params.push(param);
      // A segment with text around its parameter (`{name}.json`) is tried before a bare `{id}`.
      node.params.sort((a, b) => (a.re ? 0 : 1) - (b.re ? 0 : 1));
    }
    node = param.node;
  }
  return node;
}

/** The operation of `node` for `method` (HEAD falls back to GET), a query's own before the path's. */
function opAt(node: Node, method: string, query: Query): Operation | undefined {
  for (const m of method === 'HEAD' ? ['HEAD', 'GET'] : [method]) {
    const q = node.queryOps?.find((x) => {
      const v = x.method === m ? query[x.key] : undefined;
      return v === x.value || (Array.isArray(v) && v.includes(x.value));
    });
    const op = q?.op ?? node.ops?.get(m);
    if (op) return op;
  }
  return undefined;
}

function find(
  node: Node,
  segs: string[],
  i: number,
  method: string,
  params: Record<string, string>,
  query: Query = {},
): Operation | undefined {
  if (i === segs.length) return opAt(node, method, query);
  const seg = segs[i]!;
  const lit = node.literal.get(seg);
  if (lit) {
    const op = find(lit, segs, i + 1, method, params, query);
    if (op) return op;
  }
  for (const p of node.params) {
    let values: string[];
    if (p.re) {
      const m = p.re.exec(seg);
      if (!m) continue;
      values = m.slice(1);
    } else values = [seg];
    const op = find(p.node, segs, i + 1, method, params, query);
    if (op) {
      p.names.forEach((n, k) => (params[n] = values[k] ?? ''));
      return op;
    }
  }
  return undefined;
}

/** The path part of the document's servers (OpenAPI 3) or its basePath (Swagger 2.0), without `/` at the end. */
function basePaths(doc: JsonObject): string[] {
  const out = new Set<string>();
  if (typeof doc['basePath'] === 'string') out.add(doc['basePath']);
  if (Array.isArray(doc['servers']))
    for (const s of doc['servers']) {
      if (!isObject(s) || typeof s['url'] !== 'string') continue;
      const vars = isObject(s['variables']) ? s['variables'] : {};
      const url = s['url'].replace(/\{([^}]+)\}/g, (_m, v: string) => {
        const d = isObject(vars[v]) ? vars[v]['default'] : undefined;
        return typeof d === 'string' ? d : '';
      });
      try {
        out.add(new URL(url, 'http://base.invalid').pathname);
      } catch {
        // A server URL that does not parse adds no base path.
      }
    }
  return [...out].map((b) => decode(b).replace(/\/+$/, '')).filter((b) => b !== '');
}

function exampleOf(o: JsonObject): { value: unknown } | undefined {
  return o['example'] !== undefined ? { value: o['example'] } : undefined;
}

/** Where a response's parts are, for the messages of the schema budget. */
function under(path: string, ...keys: string[]): string {
  return keys.reduce((p, k) => `${p}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, path);
}

function openapiResponse(
  root: JsonObject,
  key: string,
  raw: unknown,
  schemas: SchemaExpander,
  path: string,
): ResponseSpec {
  const r = deref(root, raw);
  const res: ResponseSpec = { key, contents: [], headers: [] };
  if (!isObject(r)) return res;
  if (isObject(r['content']))
    for (const [type, rawMedia] of Object.entries(r['content'])) {
      const m = deref(root, rawMedia);
      if (!isObject(m)) continue;
      const examples = new Map<string, unknown>();
      if (isObject(m['examples']))
        for (const [name, ex] of Object.entries(m['examples'])) {
          const e = deref(root, ex);
          // externalValue would be a fetch: such examples are left out.
          if (isObject(e) && e['value'] !== undefined) examples.set(name, e['value']);
        }
      const schema = schemas.shapeOf(m['schema'], under(path, 'content', type, 'schema'));
      const media: MediaSpec = { type, schema, examples };
      const example = exampleOf(m);
      if (example) media.example = example;
      res.contents.push(media);
    }
  if (isObject(r['headers']))
    for (const [name, rawHeader] of Object.entries(r['headers'])) {
      const h = deref(root, rawHeader);
      if (!isObject(h)) continue;
      let example = exampleOf(h);
      if (!example && isObject(h['examples'])) {
        const first = deref(root, Object.values(h['examples'])[0]);
        if (isObject(first) && first['value'] !== undefined) example = { value: first['value'] };
      }
      const schema = schemas.shapeOf(h['schema'], under(path, 'headers', name, 'schema'));
      res.headers.push({ name, schema, ...(example ? { example } : {}) });
    }
  return res;
}

function swaggerResponse(
  root: JsonObject,
  key: string,
  raw: unknown,
  produces: string[],
  schemas: SchemaExpander,
  path: string,
): ResponseSpec {
  const r = deref(root, raw);
  const res: ResponseSpec = { key, contents: [], headers: [] };
  if (!isObject(r)) return res;
  const examples = new Map<string, unknown>(isObject(r['examples']) ? Object.entries(r['examples']) : []);
  if (r['schema'] !== undefined || examples.size > 0) {
    const types = produces.length > 0 ? produces : ['application/json'];
    const schema = schemas.shapeOf(r['schema'], under(path, 'schema'));
    for (const type of [...new Set([...types, ...examples.keys()])]) {
      const media: MediaSpec = { type, schema, examples };
      if (examples.has(type)) media.example = { value: examples.get(type) };
      res.contents.push(media);
    }
  }
  if (isObject(r['headers']))
    for (const [name, h] of Object.entries(r['headers'])) {
      // A Swagger 2.0 header is its own schema (type, format, enum …).
      if (isObject(h))
        res.headers.push({
          name,
          schema: schemas.shapeOf(h, under(path, 'headers', name)),
          ...(h['x-example'] !== undefined ? { example: { value: h['x-example'] } } : {}),
        });
    }
  return res;
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}

/**
 * Compiles a validated document (JSON text or object) for serving. `slice` is awaited between path
 * items, so that compiling thousands of operations lets other requests run (jobs/slices.ts); parsing
 * the text is one block, about 12 ms a MiB. Throws SchemaBudgetError when the responses' schemas cost
 * more than `schemaBudget` units to expand (or than what is left of the budget of an expander given).
 */
export async function compileSpec(
  document: string | JsonObject,
  intelligenceMock: boolean,
  slice: Slicer = timeSlicer(),
  schemaBudget: number | SchemaExpander = OAS_SCHEMA_BUDGET_DEFAULT,
): Promise<CompiledSpec> {
  const root = (typeof document === 'string' ? JSON.parse(document) : document) as JsonObject;
  await slice();
  const swagger = root['swagger'] === '2.0';
  const tree = newNode();
  const schemas = typeof schemaBudget === 'number' ? new SchemaExpander(root, schemaBudget) : schemaBudget;
  let operationCount = 0;
  const paths = isObject(root['paths']) ? root['paths'] : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref(root, rawItem);
    if (!isObject(item)) continue;
    const fragment = splitFragment(path);
    const node = insert(tree, fragment.path);
    if (!node) continue;
    for (const m of HTTP_METHODS) {
      const o = item[m];
      if (!isObject(o)) continue;
      const produces = strings(o['produces']) ?? strings(root['produces']) ?? [];
      const responses = isObject(o['responses']) ? o['responses'] : {};
      const op: Operation = {
        method: m.toUpperCase(),
        path,
        responses: Object.entries(responses)
          .filter(([k]) => !k.startsWith('x-'))
          .map(([k, r]) => {
            const at = under('/paths', path, m, 'responses', k);
            return swagger
              ? swaggerResponse(root, k, r, produces, schemas, at)
              : openapiResponse(root, k, r, schemas, at);
          }),
      };
      if (typeof o['operationId'] === 'string') op.operationId = o['operationId'];
      if (fragment.key !== undefined)
        (node.queryOps ??= []).push({ method: op.method, key: fragment.key, value: fragment.value!, op });
      else (node.ops ??= new Map()).set(op.method, op);
      operationCount++;
    }
    await schemas.drain(slice);
    await slice();
  }
  const bases = basePaths(root);
  return {
    root,
    intelligenceMock,
    operationCount,
    schemaUnits: schemas.spent,
    match(method, pathname, query = {}) {
      const segs = segmentsOf(pathname).map(decode);
      const params: Record<string, string> = Object.create(null) as Record<string, string>;
      let op = find(tree, segs, 0, method, params, query);
      for (let i = 0; !op && i < bases.length; i++) {
        const base = segmentsOf(bases[i]!);
        if (base.every((b, k) => segs[k] === b))
          op = find(tree, segs.slice(base.length), 0, method, params, query);
      }
      return op && { op, params };
    },
  };
}

/**
 * What an upload's schemas cost to expand: the responses' schemas as compileSpec expands them, then
 * every other schema that composes, wherever it sits (a request body, an unused component), as the
 * parser will walk it; each schema once. Throws SchemaBudgetError past `schemaBudget`; answers the units.
 */
export async function schemaUnitsOf(doc: JsonObject, schemaBudget: number): Promise<number> {
  const schemas = new SchemaExpander(doc, schemaBudget);
  await compileSpec(doc, false, () => Promise.resolve(), schemas);
  expandEveryComposition(doc, schemas);
  return schemas.spent;
}
