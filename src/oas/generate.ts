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
    const choices = s['enum'].filter((v) => v !== null);
    return choices.length > 0 ? st.faker.helpers.arrayElement(choices) : null;
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

/** A field name reduced for matching: `created_at`, `Created-At` and `createdAt` are `createdat`. */
function key(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
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

function byFormat(f: Faker, format: string): string | undefined {
  switch (format) {
    case 'email':
    case 'idn-email':
      return f.internet.email();
    case 'uuid':
      return f.string.uuid();
    case 'date-time':
      return f.date.recent({ days: 30 }).toISOString();
    case 'date':
      return f.date.recent({ days: 30 }).toISOString().slice(0, 10);
    case 'time':
      return f.date.recent().toISOString().slice(11, 19) + 'Z';
    case 'uri':
    case 'url':
    case 'iri':
    case 'uri-reference':
    case 'iri-reference':
      return f.internet.url();
    case 'hostname':
    case 'idn-hostname':
      return f.internet.domainName();
    case 'ipv4':
      return f.internet.ipv4();
    case 'ipv6':
      return f.internet.ipv6();
    case 'byte':
      return Buffer.from(f.lorem.words(3)).toString('base64');
    case 'binary':
      return f.string.alphanumeric(16);
    case 'password':
      return f.internet.password();
    case 'int32':
    case 'int64':
      return String(f.number.int({ min: 1, max: 100_000 }));
    default:
      return undefined;
  }
}

function byName(f: Faker, name: string): string | undefined {
  const n = key(name);
  if (n === '') return undefined;
  if (n.includes('email')) return f.internet.email();
  if (/^(firstname|givenname|forename)$/.test(n)) return f.person.firstName();
  if (/^(lastname|surname|familyname)$/.test(n)) return f.person.lastName();
  if (/^(name|fullname|displayname|author|owner|customername|contactname)$/.test(n))
    return f.person.fullName();
  if (/^(username|login|nickname|handle)$/.test(n)) return f.internet.username();
  if (/(phone|mobile|fax|tel)/.test(n)) return f.phone.number();
  if (/(street|address)/.test(n)) return f.location.streetAddress();
  if (/^city$/.test(n)) return f.location.city();
  if (/^(zip|zipcode|postcode|postalcode)$/.test(n)) return f.location.zipCode();
  if (/^(countrycode)$/.test(n)) return f.location.countryCode();
  if (/^country$/.test(n)) return f.location.country();
  if (/^(state|province|region)$/.test(n)) return f.location.state();
  if (/(company|organization|organisation|employer)/.test(n)) return f.company.name();
  if (/(avatar|image|photo|picture|thumbnail)/.test(n)) return f.image.url();
  if (/(url|uri|website|homepage|link|href)$/.test(n)) return f.internet.url();
  if (/(password|secret)$/.test(n)) return f.internet.password();
  if (/(token|hash|apikey)$/.test(n)) return f.string.alphanumeric(32);
  if (/^(ip|ipaddress)$/.test(n)) return f.internet.ipv4();
  if (/^(uuid|guid|id)$/.test(n) || /id$/.test(n)) return f.string.uuid();
  if (/(date|time|at|timestamp)$/.test(n)) return f.date.recent({ days: 30 }).toISOString();
  if (/(description|summary|bio|comment|message|text|content|body|note)s?$/.test(n))
    return f.lorem.sentence();
  if (/^(title|headline|subject)$/.test(n)) return f.lorem.words(3);
  if (/(colou?r)$/.test(n)) return f.color.human();
  if (/^currency(code)?$/.test(n)) return f.finance.currencyCode();
  if (/^(slug)$/.test(n)) return f.lorem.slug();
  if (/^(language|lang|locale)$/.test(n)) return f.helpers.arrayElement(['en', 'de', 'fr', 'es', 'pt', 'it']);
  return undefined;
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
