/**
 * Data for a response that has no example: a value built from its JSON Schema with faker, in the
 * endpoint's locale. Formats are respected (`email`, `uuid`, `date-time` …) and so are field names
 * (`email`, `firstName`, `city`, `createdAt`, `price` …); an object has its `required` properties
 * and the others it declares, never one it does not declare; `enum`, `const`, bounds, `allOf`,
 * `oneOf`/`anyOf` (the first choice), OpenAPI 3.0's `nullable` and 3.1's type lists are understood.
 * A string with a `pattern` is never answered unless it matches (checked in linear time, pattern.ts):
 * it is the format's or name's value that matches, one made from the pattern, or the schema's example;
 * failing those the value is left out (an optional property omitted, an array item dropped).
 *
 * Generation walks a schema whose composition was expanded beforehand within a budget (flatten.ts):
 * a compiled spec hands over Shapes made at upload, and a raw schema is expanded first. No `$ref`,
 * `allOf` or `oneOf` is resolved here, so the cost of a request does not grow with the composition.
 *
 * Bounded whatever the schema (SPEC §12): nesting past OAS_GENERATE_DEPTH keeps required properties
 * only and at most one item, and past twice that gives empty values, so a recursive schema (a tree of
 * nodes) ends; arrays have at most OAS_GENERATE_ITEMS items; past OAS_GENERATE_NODES values in one
 * body only required properties and empty arrays are made, and past twice that, empty values. So
 * `minItems`, `minLength` and `required` are honoured only within these bounds.
 */
import type { Faker } from '@faker-js/faker';
import { OAS_SCHEMA_BUDGET_DEFAULT } from '../config.js';
import { isObject, type JsonObject } from './refs.js';
import { isShape, SchemaExpander, type Expanded } from './flatten.js';
import { fromPattern, matchesPattern, patternCheckable } from './pattern.js';
import { byFormat, byName, key } from './faker-values.js';

/** Nesting (objects and arrays) past which only required properties and the fewest items are made. */
export const OAS_GENERATE_DEPTH = 6;
/** Most items of a generated array, whatever `minItems` asks. */
export const OAS_GENERATE_ITEMS = 10;
/** Most values (objects, arrays, scalars) in one generated body. */
export const OAS_GENERATE_NODES = 2000;
/** Longest generated string, whatever `minLength` asks. */
export const OAS_GENERATE_STRING = 1000;

export interface GenerateOptions {
  faker: Faker;
  /** The whole document, for the `$ref`s of a schema that is not expanded yet. */
  root: unknown;
  /** Use `example`, `examples` and `default` of the schema where there are some (false: always generate). */
  useExamples: boolean;
  /** Units a schema that is not expanded yet may cost (OAS_SCHEMA_BUDGET). */
  schemaBudget?: number;
}

interface State extends GenerateOptions {
  nodes: number;
}

/**
 * A generated value for `schema` (a Shape of a compiled spec, or a raw schema, expanded first: then
 * SchemaBudgetError past the budget); `name` is the property (or parameter) it is for, if any.
 */
export function generate(schema: unknown, opts: GenerateOptions, name = ''): unknown {
  const shape: Expanded =
    isShape(schema) || schema === false
      ? schema
      : new SchemaExpander(opts.root, opts.schemaBudget ?? OAS_SCHEMA_BUDGET_DEFAULT).expand(schema);
  return gen({ ...opts, nodes: 0 }, shape, name, 0);
}

function setOwn(o: JsonObject, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function typeOf(s: JsonObject): string | undefined {
  const t = s['type'];
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    const nonNull: unknown = (t as unknown[]).find((x) => x !== 'null');
    return typeof nonNull === 'string' ? nonNull : t.length > 0 ? 'null' : undefined;
  }
  if (isObject(s['properties']) || isObject(s['additionalProperties'])) return 'object';
  if (s['items'] !== undefined || Array.isArray(s['prefixItems'])) return 'array';
  if (typeof s['format'] === 'string') return 'string';
  return undefined;
}

/** The JSON type of a value, as a schema's `type` names it. */
function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Whether `v` is of the schema's declared `type` (any value when it declares none). */
function ofType(s: JsonObject, v: unknown): boolean {
  const t = s['type'];
  const types = typeof t === 'string' ? [t] : Array.isArray(t) ? t : undefined;
  if (types === undefined) return true;
  const vt = jsonType(v);
  return types.includes(vt) || (vt === 'integer' && types.includes('number'));
}

/** The least value of a schema's type: where the bounds stop building. */
function least(s: JsonObject): unknown {
  switch (typeOf(s)) {
    case 'object':
      return {};
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return typeof s['minimum'] === 'number' ? s['minimum'] : 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return '';
  }
}

function gen(st: State, s: unknown, name: string, depth: number): unknown {
  // No schema (an array without `items`, a $ref that led nowhere): text.
  if (s === undefined) return stringFor(st, {}, name);
  if (!isObject(s)) return undefined;
  // The hard stop: past twice the depth or twice the values, the least value of the type.
  if (depth > 2 * OAS_GENERATE_DEPTH || st.nodes > 2 * OAS_GENERATE_NODES) return least(s);
  st.nodes++;
  if (st.useExamples) {
    if (s['example'] !== undefined) return s['example'];
    if (Array.isArray(s['examples']) && s['examples'].length > 0) return s['examples'][0];
    if (s['default'] !== undefined) return s['default'];
  }
  if (s['const'] !== undefined) return s['const'];
  if (Array.isArray(s['enum']) && s['enum'].length > 0) {
    // Only the choices of the declared type: `type: array` with `enum: [open, company]` (box.com's)
    // has none, and no value is valid: it is left out, as a pattern without a match is.
    const choices = s['enum'].filter((v) => v !== null && ofType(s, v));
    if (choices.length > 0) return st.faker.helpers.arrayElement(choices);
    return s['enum'].includes(null) ? null : undefined;
  }
  const spent = st.nodes > OAS_GENERATE_NODES;
  const shallow = depth >= OAS_GENERATE_DEPTH || spent;
  switch (typeOf(s)) {
    case 'object':
      return objectFor(st, s, depth, shallow);
    case 'array':
      return arrayFor(st, s, name, depth, shallow, spent);
    case 'integer':
      return numberFor(st, s, name, true);
    case 'number':
      return numberFor(st, s, name, false);
    case 'boolean':
      return st.faker.datatype.boolean();
    case 'null':
      return null;
    default:
      return stringFor(st, s, name);
  }
}

function objectFor(st: State, s: JsonObject, depth: number, shallow: boolean): JsonObject {
  const out: JsonObject = {};
  const properties = isObject(s['properties']) ? s['properties'] : {};
  const required = new Set(
    Array.isArray(s['required']) ? s['required'].filter((r): r is string => typeof r === 'string') : [],
  );
  for (const [key, prop] of Object.entries(properties)) {
    // A response carries no write-only property unless it is required.
    if (!required.has(key) && (shallow || (isObject(prop) && prop['writeOnly'] === true))) continue;
    const v = gen(st, prop, key, depth + 1);
    if (v !== undefined) setOwn(out, key, v);
  }
  // Required names the schema does not describe: from additionalProperties, else text.
  for (const key of required) {
    if (Object.hasOwn(out, key)) continue;
    const extra = s['additionalProperties'];
    const v = isObject(extra) ? gen(st, extra, key, depth + 1) : stringFor(st, {}, key);
    if (v !== undefined) setOwn(out, key, v);
  }
  return sized(st, s, out, properties, required, depth);
}

/**
 * `out` within `minProperties` and `maxProperties` (the least capped at OAS_GENERATE_ITEMS): the
 * declared properties left out first, then `additionalProperties` (`key1`, `key2` …) unless false;
 * past the most, optional properties dropped from the end.
 */
function sized(
  st: State,
  s: JsonObject,
  out: JsonObject,
  properties: JsonObject,
  required: Set<string>,
  depth: number,
): JsonObject {
  const min = typeof s['minProperties'] === 'number' ? Math.min(s['minProperties'], OAS_GENERATE_ITEMS) : 0;
  const count = (): number => Object.keys(out).length;
  for (const [key, prop] of Object.entries(properties)) {
    if (count() >= min) break;
    if (Object.hasOwn(out, key)) continue;
    const v = gen(st, prop, key, depth + 1);
    if (v !== undefined) setOwn(out, key, v);
  }
  const extra = s['additionalProperties'];
  for (let i = 1; count() < min && extra !== false && i <= 2 * OAS_GENERATE_ITEMS; i++) {
    const key = `key${i}`;
    if (Object.hasOwn(out, key)) continue;
    const v = isObject(extra) ? gen(st, extra, key, depth + 1) : stringFor(st, {}, key);
    if (v !== undefined) setOwn(out, key, v);
  }
  const max = s['maxProperties'];
  if (typeof max === 'number')
    for (const key of Object.keys(out).reverse()) {
      if (count() <= max) break;
      if (!required.has(key)) delete out[key];
    }
  return out;
}

function arrayFor(
  st: State,
  s: JsonObject,
  name: string,
  depth: number,
  shallow: boolean,
  spent: boolean,
): unknown[] {
  const min = Math.min(
    typeof s['minItems'] === 'number' ? Math.max(0, s['minItems']) : 0,
    OAS_GENERATE_ITEMS,
  );
  const max = Math.min(
    typeof s['maxItems'] === 'number' ? s['maxItems'] : Math.max(min, 3),
    OAS_GENERATE_ITEMS,
  );
  // Past the depth, the fewest items (at most one); once the values are spent, none.
  const count = spent
    ? 0
    : shallow
      ? Math.min(min, 1)
      : st.faker.number.int({ min: Math.max(min, Math.min(1, max)), max: Math.max(min, max) });
  const prefix: unknown[] = Array.isArray(s['prefixItems']) ? (s['prefixItems'] as unknown[]) : [];
  // Items are named after the array (`emails` holds e-mails), without a plural `s`.
  const itemName = name.replace(/(?<=.)(e?s)$/i, (m) => (m.toLowerCase() === 'es' ? 'e' : ''));
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const item: unknown = i < prefix.length ? prefix[i] : s['items'];
    if (item === false) break;
    const v = gen(st, item, itemName, depth + 1);
    // An item no value could be made for (a pattern without a match) is left out.
    if (v !== undefined) out.push(v);
  }
  if (s['uniqueItems'] === true) return [...new Map(out.map((v) => [JSON.stringify(v), v])).values()];
  return out;
}

function numberFor(st: State, s: JsonObject, name: string, integer: boolean): number {
  const n = key(name);
  let [lo, hi] = ((): [number, number] => {
    if (/^(age)$/.test(n)) return [18, 90];
    if (/(price|amount|cost|total|balance|salary)$/.test(n)) return [1, 1000];
    if (/^(lat|latitude)$/.test(n)) return [-90, 90];
    if (/^(lng|lon|long|longitude)$/.test(n)) return [-180, 180];
    if (/year$/.test(n)) return [1990, 2030];
    if (/^port$/.test(n)) return [1024, 65535];
    if (/(count|quantity|qty|size|limit)$/.test(n)) return [1, 100];
    if (/(^id|id)$/.test(n)) return [1, 100_000];
    return integer ? [1, 1000] : [0, 1000];
  })();
  const min = s['minimum'];
  const max = s['maximum'];
  const exMin = s['exclusiveMinimum'];
  const exMax = s['exclusiveMaximum'];
  const step = integer ? 1 : 0.01;
  if (typeof min === 'number') lo = exMin === true ? min + step : min;
  if (typeof exMin === 'number') lo = exMin + step;
  if (typeof max === 'number') hi = exMax === true ? max - step : max;
  if (typeof exMax === 'number') hi = exMax - step;
  if (lo > hi) {
    if (typeof min === 'number' || typeof exMin === 'number') hi = lo + (integer ? 1000 : 1000);
    else lo = hi - 1000;
  }
  if (lo > hi) hi = lo;
  const multipleOf = s['multipleOf'];
  if (typeof multipleOf === 'number' && multipleOf > 0) {
    const k = st.faker.number.int({
      min: Math.ceil(lo / multipleOf),
      max: Math.max(Math.ceil(lo / multipleOf), Math.floor(hi / multipleOf)),
    });
    return k * multipleOf;
  }
  if (integer)
    return st.faker.number.int({ min: Math.ceil(lo), max: Math.max(Math.ceil(lo), Math.floor(hi)) });
  return st.faker.number.float({ min: lo, max: hi, fractionDigits: 2 });
}

/**
 * A string for a schema with a `pattern`: the format's or the field name's value when it matches, else
 * one the pattern generator makes (pattern.ts, checked in linear time), else the schema's own example
 * or default when it matches (or, for a pattern that cannot be checked, as it is); undefined when none
 * does (the caller leaves the value out).
 */
function patternString(
  st: State,
  s: JsonObject,
  pattern: string,
  name: string,
  min: number,
  max: number,
): string | undefined {
  const fits = (v: unknown): v is string =>
    typeof v === 'string' && v.length >= min && v.length <= max && matchesPattern(pattern, v);
  const format = typeof s['format'] === 'string' ? byFormat(st.faker, s['format']) : undefined;
  if (fits(format)) return format;
  const named = byName(st.faker, name);
  if (fits(named)) return named;
  const made = fromPattern(st.faker, pattern, min, max);
  if (made !== undefined) return made;
  const listed: unknown[] = Array.isArray(s['examples']) ? s['examples'] : [];
  const examples = [s['example'], ...listed, s['default']];
  // A pattern RE2 cannot run (lookaround, a backreference) cannot be checked: the document's own
  // example is taken at its word.
  if (!patternCheckable(pattern))
    return examples.find((v): v is string => typeof v === 'string' && v.length >= min && v.length <= max);
  return examples.find(fits);
}

/** A string for the schema; undefined only when it has a `pattern` no string could be found for. */
function stringFor(st: State, s: JsonObject, name: string): string | undefined {
  const f = st.faker;
  const minLength = Math.min(typeof s['minLength'] === 'number' ? s['minLength'] : 0, OAS_GENERATE_STRING);
  const maxLength = Math.min(
    typeof s['maxLength'] === 'number' ? s['maxLength'] : OAS_GENERATE_STRING,
    OAS_GENERATE_STRING,
  );
  if (typeof s['pattern'] === 'string')
    return patternString(st, s, s['pattern'], name, minLength, Math.max(minLength, maxLength));
  const format = typeof s['format'] === 'string' ? s['format'] : '';
  let v = byFormat(f, format) ?? byName(f, name) ?? f.lorem.word();
  if (v.length < minLength) v += f.string.alpha(minLength - v.length);
  if (v.length > maxLength) v = v.slice(0, Math.max(maxLength, minLength));
  return v;
}

/** A value for a response header's schema, as header text (undefined when it has none). */
export function headerValue(schema: unknown, opts: GenerateOptions, name: string): string | undefined {
  const v = generate(schema, opts, name);
  if (v === undefined || v === null) return undefined;
  const text = (x: unknown): string =>
    typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean' ? String(x) : JSON.stringify(x);
  return Array.isArray(v) ? v.map(text).join(',') : text(v);
}
