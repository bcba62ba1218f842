/**
 * The schemas of an OpenAPI document as a JSON Schema validator (ajv) checks them: OpenAPI 3.1's are
 * JSON Schema 2020-12 already; Swagger 2.0's and OpenAPI 3.0's are draft-04-like with their own words
 * (`nullable`, `x-nullable`, boolean `exclusiveMinimum`, `type: file`), rewritten here into draft-07.
 * The whole document is added to the validator under one id, so a schema is found by its JSON pointer
 * and its `$ref`s (`#/components/…`, `#/definitions/…`) resolve inside the document.
 *
 * Patterns run in RE2's linear-time engine (src/regex/), never in V8's: the document is untrusted.
 * Formats are not checked (no format plugin is a dependency); unknown keywords are ignored.
 */
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { compileUserRegex, regexTest, userRegexProblem } from '../regex/index.js';
import { isObject, type JsonObject } from './refs.js';
import { re2Source } from './pattern.js';

/** The id the document is added under: a schema at pointer `/a/b` is `DOC_ID#/a/b`. */
const DOC_ID = 'openapi-document';

/**
 * The pattern engine handed to ajv: RE2 (a pattern RE2 refuses matches nothing). ajv keeps one
 * compiled pattern per `toString()`, so each answers its own source.
 */
export function re2(pattern: string): { test: (s: string) => boolean; toString: () => string } {
  const key = (): string => `/${pattern}/`;
  const source = re2Source(pattern);
  if (userRegexProblem(source) !== undefined) return { test: () => false, toString: key };
  const re = compileUserRegex(source);
  return { test: (s) => regexTest(re, s), toString: key };
}
re2.code = 're2';

/**
 * Keys whose children are names (of properties, responses, media types …), not keywords: a property
 * called `example` or the response `default` is kept.
 */
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  'definitions',
  '$defs',
  'dependentSchemas',
  'paths',
  'responses',
  'schemas',
  'parameters',
  'headers',
  'content',
  'requestBodies',
  'securitySchemes',
  'links',
  'callbacks',
  'pathItems',
  'encoding',
  'variables',
  'webhooks',
]);

/**
 * Keywords that hold data, not schemas, and do not change what is valid: left out of the validator's
 * copy, since ajv reads every key of an object it does not know as a schema, so an example holding
 * `$id: …` twice made the document unreadable ("resolves to more than one schema"; box.com's).
 */
function annotation(key: string): boolean {
  return key === 'example' || key === 'examples' || key === 'default' || key.startsWith('x-');
}

/**
 * The validator's copy of a document: annotations left out (above) and, but for OpenAPI 3.1, a Swagger
 * 2.0 or OpenAPI 3.0 value with its schema words rewritten into draft-07.
 */
export function rewrite(v: unknown, is31: boolean, names = false): unknown {
  if (Array.isArray(v)) return v.map((x) => rewrite(x, is31));
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    if (!names && annotation(k)) continue;
    // `enum` and `const` are data that decide what is valid: copied as they are.
    out[k] = k === 'enum' || k === 'const' ? x : rewrite(x, is31, !names && NAME_MAPS.has(k));
  }
  if (is31) return out;
  if (out['nullable'] === true || v['x-nullable'] === true) {
    if (typeof out['type'] === 'string') out['type'] = [out['type'], 'null'];
    const choices: unknown = out['enum'];
    if (Array.isArray(choices) && !choices.includes(null)) out['enum'] = [...(choices as unknown[]), null];
  }
  for (const [ex, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (out[ex] === true && typeof out[bound] === 'number') {
      out[ex] = out[bound];
      delete out[bound];
    } else if (out[ex] === false) delete out[ex];
  }
  if (out['type'] === 'file') delete out['type'];
  return out;
}

/** Validates values against the schemas of one document, found by their JSON pointers. */
export class DocumentSchemas {
  private readonly ajv: Ajv;

  /** `extra`: options for the validator; `extend`: plugins (the tests add formats). */
  constructor(doc: JsonObject, extra: Options = {}, extend?: (ajv: Ajv) => void) {
    const opts: Options = {
      strict: false,
      allErrors: false,
      validateFormats: false,
      validateSchema: false,
      code: { regExp: re2 },
      ...extra,
    };
    const is31 = typeof doc['openapi'] === 'string' && doc['openapi'].startsWith('3.1');
    this.ajv = is31 ? new Ajv2020(opts) : new Ajv(opts);
    extend?.(this.ajv);
    const copy = rewrite(doc, is31) as JsonObject;
    // The document's own `$id`/`$schema` would change how its schemas are read.
    delete copy['$id'];
    delete copy['$schema'];
    this.ajv.addSchema(copy, DOC_ID);
  }

  /** The validator of the schema at `pointer` (`/paths/~1pets/get/…/schema`); throws if it does not compile. */
  at(pointer: string): ValidateFunction {
    const v = this.ajv.getSchema(`${DOC_ID}#${pointer}`);
    if (!v) throw new Error(`No schema at ${pointer}`);
    return v;
  }

  /** Why `value` is not valid against the validator, as one line, or undefined when it is. */
  static problem(validate: ValidateFunction, value: unknown): string | undefined {
    if (validate(value)) return undefined;
    const e = validate.errors?.[0];
    return e ? `${e.instancePath || '(the value)'} ${e.message ?? 'is invalid'}` : 'is invalid';
  }
}

/** A JSON pointer of keys (`~` and `/` escaped). */
export function pointer(...keys: string[]): string {
  return keys.map((k) => '/' + k.replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}
