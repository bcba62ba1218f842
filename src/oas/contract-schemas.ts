/**
 * The validators contract checking (SPEC §7) runs, per compiled spec: two ajv instances over the
 * document (json-schema.ts), made on the first request that needs one: `strict` for JSON bodies (a
 * `"12"` is not an integer) and `coercing` for what arrives as text (parameters, form fields: `12`
 * is an integer, `abc` is not; a lone value where an array is declared is a one-item array). Each
 * schema is compiled once, on its first use, and kept (a WeakMap on the spec: an upload that
 * replaces it drops them all).
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

class SpecSchemas {
  private strictDoc: DocumentSchemas | undefined;
  private coercingDoc: DocumentSchemas | undefined;
  private readonly made = new Map<string, Checker>();

  constructor(
    private readonly spec: CompiledSpec,
    private readonly maxNodes: number,
  ) {}

  checker(pointer: string, coerce: boolean, own: boolean): Checker {
    const key = `${coerce ? 'c' : 's'}${own ? 'o' : ''}${pointer}`;
    let c = this.made.get(key);
    if (!c) {
      c = this.make(pointer, coerce, own);
      this.made.set(key, c);
    }
    return c;
  }

  private make(pointer: string, coerce: boolean, own: boolean): Checker {
    const nodes = countNodes(this.spec.root, pointer, this.maxNodes);
    if (nodes > this.maxNodes)
      return {
        skipped: `The schema at ${pointer} was not checked: it has more than ${this.maxNodes} nodes (OAS_CONTRACT_SCHEMA_NODES).`,
      };
    try {
      const doc = this.doc(coerce);
      if (!own) return { validate: doc.at(pointer) };
      return { validate: doc.compile(ownSchema(resolvePointer(this.spec.root, `#${pointer}`))) };
    } catch (err) {
      return {
        skipped: `The schema at ${pointer} was not checked: ${err instanceof Error ? err.message : String(err)}.`,
      };
    }
  }

  private doc(coerce: boolean): DocumentSchemas {
    const opts = { validateFormats: true, logger: false as const };
    if (coerce)
      return (this.coercingDoc ??= new DocumentSchemas(
        this.spec.root,
        { ...opts, coerceTypes: 'array' },
        withFormats,
      ));
    return (this.strictDoc ??= new DocumentSchemas(this.spec.root, opts, withFormats));
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
 * values that arrive as text; `own` when what is there is a Swagger 2.0 parameter, itself a schema.
 * `maxNodes` is for tests.
 */
export function checkerAt(
  spec: CompiledSpec,
  pointer: string,
  opts: { coerce: boolean; own?: boolean },
  maxNodes = OAS_CONTRACT_SCHEMA_NODES,
): Checker {
  let s = bySpec.get(spec);
  if (!s) bySpec.set(spec, (s = new SpecSchemas(spec, maxNodes)));
  return s.checker(pointer, opts.coerce, opts.own === true);
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
