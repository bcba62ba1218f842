/**
 * The validators contract checking (SPEC §7) runs, per compiled spec: two ajv instances over the
 * document (json-schema.ts), made on the first request that needs one: `strict` for JSON bodies (a
 * `"12"` is not an integer) and `coercing` for what arrives as text (parameters, form fields: `12`
 * is an integer, `abc` is not; a lone value where an array is declared is a one-item array). Each
 * schema is compiled once, on its first use, and kept (a WeakMap on the spec: an upload that
 * replaces it drops them all). A request's validators do not require `readOnly` properties, an
 * answer's do not require `writeOnly` ones (each reads its own copy of the document when it has any).
 *
 * Bounded: ajv's compile is synchronous and grows with the schema, so a schema whose reachable nodes
 * (its `$ref`s followed, each node once) pass OAS_CONTRACT_SCHEMA_NODES is never compiled: it is
 * skipped, and each check that would use it says so in one problem note instead.
 * Formats are checked with ajv-formats' fast (linear) patterns, of the formats OpenAPI names.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { CompiledSpec } from './compile.js';
import { DocumentSchemas } from './json-schema.js';
import { isObject, resolvePointer, type JsonObject } from './refs.js';

// ajv-formats is CommonJS with a default export: under NodeNext it arrives as the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** Nodes (objects and arrays) of one schema past which it is not compiled for contract checking. */
export const OAS_CONTRACT_SCHEMA_NODES = 20_000;

/** Formats checked; others (and `regex`, which would build a V8 pattern from client data) pass. */
const FORMATS = [
  'date',
  'time',
  'date-time',
  'duration',
  'uri',
  'uri-reference',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
  'int32',
  'int64',
  'float',
  'double',
  'byte',
] as const;

function withFormats(ajv: Ajv): void {
  addFormats(ajv, { mode: 'fast', formats: [...FORMATS] });
}

/** A compiled validator, or why there is none (the schema was skipped). */
export type Checker = { validate: ValidateFunction } | { skipped: string };

/** Which way a value goes: a request's `readOnly` and an answer's `writeOnly` properties are never required. */
export type Direction = 'request' | 'response';

class SpecSchemas {
  private readonly docs = new Map<string, DocumentSchemas>();
  private readonly made = new Map<string, Checker>();

  constructor(
    private readonly spec: CompiledSpec,
    private readonly maxNodes: number,
  ) {}

  checker(pointer: string, direction: Direction, coerce: boolean, own: boolean): Checker {
    const key = `${direction} ${coerce ? 'c' : 's'}${own ? 'o' : ''} ${pointer}`;
    let c = this.made.get(key);
    if (!c) {
      c = this.make(pointer, direction, coerce, own);
      this.made.set(key, c);
    }
    return c;
  }

  private make(pointer: string, direction: Direction, coerce: boolean, own: boolean): Checker {
    const nodes = countNodes(this.spec.root, pointer, this.maxNodes);
    if (nodes > this.maxNodes)
      return {
        skipped: `The schema at ${pointer} was not checked: it has more than ${this.maxNodes} nodes (OAS_CONTRACT_SCHEMA_NODES).`,
      };
    try {
      const doc = this.doc(direction, coerce);
      if (!own) return { validate: doc.at(pointer) };
      return { validate: doc.compile(ownSchema(resolvePointer(this.spec.root, `#${pointer}`))) };
    } catch (err) {
      return {
        skipped: `The schema at ${pointer} was not checked: ${err instanceof Error ? err.message : String(err)}.`,
      };
    }
  }

  private doc(direction: Direction, coerce: boolean): DocumentSchemas {
    const key = `${direction} ${coerce}`;
    let d = this.docs.get(key);
    if (!d) {
      const root = withoutRequired(this.spec.root, direction === 'request' ? 'readOnly' : 'writeOnly');
      const opts = { validateFormats: true, logger: false as const };
      d = new DocumentSchemas(root, coerce ? { ...opts, coerceTypes: 'array' } : opts, withFormats);
      this.docs.set(key, d);
    }
    return d;
  }
}

/**
 * `root`, or a copy of it in which no `required` list names a property marked `flag` (`readOnly`:
 * a client does not send it; `writeOnly`: a server does not answer it). The property is looked for
 * in the same schema's `properties` (its `$ref` followed); `root` itself when no schema is marked.
 */
export function withoutRequired(root: JsonObject, flag: 'readOnly' | 'writeOnly'): JsonObject {
  const marked = (v: unknown): boolean => isObject(v) && v[flag] === true;
  let any = false;
  const scan: unknown[] = [root];
  while (scan.length > 0 && !any) {
    const v = scan.pop();
    if (Array.isArray(v)) scan.push(...(v as unknown[]));
    else if (isObject(v)) {
      if (marked(v)) any = true;
      for (const x of Object.values(v)) if (typeof x === 'object' && x !== null) scan.push(x);
    }
  }
  if (!any) return root;
  const copy = structuredClone(root);
  const stack: unknown[] = [copy];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      stack.push(...(v as unknown[]));
      continue;
    }
    if (!isObject(v)) continue;
    const props = v['properties'];
    if (Array.isArray(v['required']) && isObject(props))
      v['required'] = (v['required'] as unknown[]).filter(
        (name) =>
          !(typeof name === 'string' && Object.hasOwn(props, name) && marked(derefIn(copy, props[name]))),
      );
    for (const x of Object.values(v)) if (typeof x === 'object' && x !== null) stack.push(x);
  }
  return copy;
}

function derefIn(root: JsonObject, v: unknown): unknown {
  for (let hops = 0; hops < 16 && isObject(v) && typeof v['$ref'] === 'string'; hops++)
    v = resolvePointer(root, v['$ref']);
  return v;
}

const bySpec = new WeakMap<CompiledSpec, SpecSchemas>();

/** The keywords of a Swagger 2.0 parameter (or its `items`) that are JSON Schema's. */
const SCHEMA_WORDS = [
  'type',
  'format',
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
];

/** A Swagger 2.0 parameter as a schema: its own schema keywords, and its `items` so, nested. */
function ownSchema(param: unknown): JsonObject {
  const out: JsonObject = {};
  if (!isObject(param)) return out;
  for (const k of SCHEMA_WORDS) if (param[k] !== undefined) out[k] = param[k];
  if (out['type'] === 'file') delete out['type'];
  if (isObject(param['items'])) out['items'] = ownSchema(param['items']);
  return out;
}

/**
 * The validator of the schema at `pointer` in `spec`'s document, compiled on first use; `coerce` for
 * values that arrive as text; `own` when what is there is a Swagger 2.0 parameter, itself a schema;
 * `direction` (default `request`) for readOnly and writeOnly. `maxNodes` is for tests.
 */
export function checkerAt(
  spec: CompiledSpec,
  pointer: string,
  opts: { coerce: boolean; own?: boolean; direction?: Direction },
  maxNodes = OAS_CONTRACT_SCHEMA_NODES,
): Checker {
  let s = bySpec.get(spec);
  if (!s) bySpec.set(spec, (s = new SpecSchemas(spec, maxNodes)));
  return s.checker(pointer, opts.direction ?? 'request', opts.coerce, opts.own === true);
}

/**
 * Objects and arrays reachable from the value at `pointer`, internal `$ref`s followed, each once;
 * counting stops past `limit`. Walked without recursion.
 */
export function countNodes(root: unknown, pointer: string, limit: number): number {
  const seen = new Set<object>();
  const stack: unknown[] = [resolvePointer(root, `#${pointer}`)];
  while (stack.length > 0 && seen.size <= limit) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null || seen.has(v)) continue;
    seen.add(v);
    if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
      continue;
    }
    if (isObject(v) && typeof v['$ref'] === 'string') stack.push(resolvePointer(root, v['$ref']));
    for (const x of Object.values(v)) stack.push(x);
  }
  return seen.size;
}
