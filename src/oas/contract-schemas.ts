/**
 * The validators contract checking (SPEC §7) runs, per compiled spec: ajv instances made on the
 * first request that needs one, `strict` for JSON bodies (a `"12"` is not an integer) and `coercing`
 * for what arrives as text (parameters, form fields: `12` is an integer, `abc` is not; a lone value
 * where an array is declared is a one-item array), with the schema words of Swagger 2.0 and OpenAPI
 * 3.0 rewritten as json-schema.ts does and patterns in RE2. Each schema is compiled once, on its first
 * use, and kept (a WeakMap on the spec: an upload that replaces it drops them all); ajv is given only
 * the schemas it reaches, never the whole document. A request's validators do not require `readOnly`
 * properties, an answer's do not require `writeOnly` ones.
 *
 * Bounded: ajv's compile is synchronous and grows with the schema, so a schema whose reachable nodes
 * (its `$ref`s followed, each node once) pass OAS_CONTRACT_SCHEMA_NODES is never compiled: it is
 * skipped, and each check that would use it says so in one problem note instead.
 * Formats are checked with ajv-formats' fast (linear) patterns, of the formats OpenAPI names.
 */
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { CompiledSpec } from './compile.js';
import { re2, rewrite } from './json-schema.js';
import { isObject, resolvePointer, type JsonObject } from './refs.js';

// ajv-formats is CommonJS with a default export: under NodeNext it arrives as the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** Nodes (objects and arrays) of one schema past which it is not compiled for contract checking. */
export const OAS_CONTRACT_SCHEMA_NODES = 1_000;

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

/** A compiled validator, or why there is none (the schema was skipped). */
export type Checker = { validate: ValidateFunction } | { skipped: string };

/** Which way a value goes: a request's `readOnly` and an answer's `writeOnly` properties are never required. */
export type Direction = 'request' | 'response';

function derefIn(root: JsonObject, v: unknown): unknown {
  for (let hops = 0; hops < 16 && isObject(v) && typeof v['$ref'] === 'string'; hops++)
    v = resolvePointer(root, v['$ref']);
  return v;
}

/**
 * One ajv instance over a document's schemas, fed only what a compiled schema reaches: each schema a
 * `$ref` leads to is added once as a schema of its own (its id `oas:N`, the `$ref`s rewritten to such
 * ids), so nothing costs in proportion to the whole document, only to the schemas used.
 */
class Pieces {
  readonly ajv: Ajv;
  private readonly ids = new Map<string, string>();
  private readonly is31: boolean;

  constructor(
    private readonly root: JsonObject,
    private readonly flag: 'readOnly' | 'writeOnly',
    coerce: boolean,
  ) {
    this.is31 = typeof root['openapi'] === 'string' && root['openapi'].startsWith('3.1');
    const opts: Options = {
      strict: false,
      allErrors: false,
      validateSchema: false,
      validateFormats: true,
      logger: false,
      // Each piece compiled once, where it is, rather than again at each `$ref` to it; and without
      // ajv's optimizing pass, whose cost grows faster than the schema (1,000 properties: 8 times).
      inlineRefs: false,
      code: { regExp: re2, optimize: false },
      ...(coerce ? { coerceTypes: 'array' as const } : {}),
    };
    this.ajv = this.is31 ? new Ajv2020(opts) : new Ajv(opts);
    addFormats(this.ajv, { mode: 'fast', formats: [...FORMATS] });
  }

  /** The validator of the schema at `pointer`, its pieces added first. */
  at(pointer: string): ValidateFunction {
    const id = this.add(pointer);
    const v = this.ajv.getSchema(id);
    if (!v) throw new Error(`No schema at ${pointer}`);
    return v;
  }

  /** A validator of `schema`, not in the document as it is (a Swagger 2.0 parameter's own words). */
  compile(schema: JsonObject): ValidateFunction {
    return this.ajv.compile(this.words(schema));
  }

  private words(v: unknown): JsonObject {
    const out = rewrite(v, this.is31);
    return isObject(out) ? out : {};
  }

  /** Adds the piece at `pointer` and every piece it reaches, each once; answers its id. */
  private add(pointer: string): string {
    const first = this.ids.get(pointer);
    if (first !== undefined) return first;
    const todo: string[] = [];
    const idOf = (p: string): string => {
      let id = this.ids.get(p);
      if (id === undefined) {
        this.ids.set(p, (id = `oas:${this.ids.size}`));
        todo.push(p);
      }
      return id;
    };
    const top = idOf(pointer);
    for (let p = todo.pop(); p !== undefined; p = todo.pop()) {
      const value = resolvePointer(this.root, `#${p}`);
      const piece = value === true || value === false ? value : this.words(this.copy(value, idOf));
      if (isObject(piece)) {
        delete piece['$id'];
        delete piece['$schema'];
      }
      this.ajv.addSchema(piece, this.ids.get(p));
    }
    return top;
  }

  /**
   * A copy of a schema with its internal `$ref`s rewritten to pieces' ids, and `required` without the
   * properties marked with this direction's flag. Recursion is bounded: countNodes came first.
   */
  private copy(v: unknown, idOf: (pointer: string) => string): unknown {
    if (Array.isArray(v)) return v.map((x) => this.copy(x, idOf));
    if (!isObject(v)) return v;
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string' && x.startsWith('#')) {
        let target: string;
        try {
          target = decodeURIComponent(x.slice(1));
        } catch {
          out[k] = x;
          continue;
        }
        out[k] = idOf(target);
      } else if (k === 'required' && Array.isArray(x) && isObject(v['properties'])) {
        const props = v['properties'];
        out[k] = (x as unknown[]).filter((name) => {
          if (typeof name !== 'string' || !Object.hasOwn(props, name)) return true;
          const p = derefIn(this.root, props[name]);
          return !(isObject(p) && p[this.flag] === true);
        });
      } else if (k === '__proto__') {
        Object.defineProperty(out, k, {
          value: this.copy(x, idOf),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else out[k] = this.copy(x, idOf);
    }
    return out;
  }
}

class SpecSchemas {
  private readonly pieces = new Map<string, Pieces>();
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
      const key = `${direction} ${coerce}`;
      let pieces = this.pieces.get(key);
      if (!pieces) {
        pieces = new Pieces(this.spec.root, direction === 'request' ? 'readOnly' : 'writeOnly', coerce);
        this.pieces.set(key, pieces);
      }
      if (!own) return { validate: pieces.at(pointer) };
      return { validate: pieces.compile(ownSchema(resolvePointer(this.spec.root, `#${pointer}`))) };
    } catch (err) {
      return {
        skipped: `The schema at ${pointer} was not checked: ${err instanceof Error ? err.message : String(err)}.`,
      };
    }
  }
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
