/**
 * TypeBox validation for the management API. Route schemas are TypeBox types: this module compiles
 * them for Fastify (so that one schema validates, types the handler and feeds the OpenAPI document)
 * and turns TypeBox's findings into the documented error details: a JSON pointer into the input,
 * what is wrong, and what was received. Discriminated unions (rule actions and conditions) are
 * explained against the member their `type` names, so a bad status reads "/action/status", not
 * "/action: Expected union value".
 */
import type { FastifyInstance } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value, ValueErrorType } from '@sinclair/typebox/value';
import { AppError, type ErrorDetail } from '../errors.js';

const RECEIVED_MAX = 200;

/**
 * Most problems one validation reports. A 4 MiB body can hold hundreds of thousands of mistakes:
 * collecting and answering every one took seconds and made answers of 50 MB; the first ones tell the
 * client what to fix.
 */
export const MAX_DETAILS = 100;

/** The received value as the error details show it: JSON text, cut to a readable length. */
export function received(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value);
  return text.length > RECEIVED_MAX ? text.slice(0, RECEIVED_MAX) + '…' : text;
}

/** One error detail. */
export function detail(path: string, message: string, value?: unknown): ErrorDetail {
  const r = received(value);
  return r === undefined ? { path: path || '/', message } : { path: path || '/', message, received: r };
}

/** The 400 validation_error carrying `details`. */
export function validationError(details: ErrorDetail[], message?: string): AppError {
  const first = details[0];
  return new AppError(
    'validation_error',
    message ?? (first ? `${first.path}: ${first.message}` : 'The request is not valid.'),
    { details },
  );
}

interface DiscriminatedUnion {
  anyOf: TSchema[];
  discriminator: { propertyName: string };
}

function isDiscriminated(schema: unknown): schema is DiscriminatedUnion {
  const s = schema as Partial<DiscriminatedUnion> | undefined;
  return Array.isArray(s?.anyOf) && typeof s?.discriminator?.propertyName === 'string';
}

/** The constant a union member holds for the discriminator property, if any. */
function tagOf(member: TSchema, prop: string): unknown {
  const p = (member as { properties?: Record<string, { const?: unknown }> }).properties?.[prop];
  return p?.const;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Whether a union member's JSON type is the type of `v` (an integer schema takes any number). */
function typeMatches(member: TSchema, v: unknown): boolean {
  const t = (member as { type?: unknown }).type;
  const actual = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
  return t === actual || (t === 'integer' && actual === 'number');
}

/** The object member of a union that declares the most of `value`'s properties, when one alone does. */
function closestObject(members: TSchema[], value: unknown): TSchema | undefined {
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value);
  let best: TSchema | undefined;
  let bestScore = 0;
  let tie = false;
  for (const m of members) {
    const props = (m as { properties?: Record<string, unknown> }).properties ?? {};
    const score = keys.filter((k) => Object.hasOwn(props, k)).length;
    if (score > bestScore) [best, bestScore, tie] = [m, score, false];
    else if (score === bestScore) tie = true;
  }
  return bestScore > 0 && !tie ? best : undefined;
}

/** A union member as a message names it: its type, an object by its required properties. */
function shapeName(m: TSchema): string {
  const { type, required, const: constant } = m as { type?: unknown; required?: string[]; const?: unknown };
  if (constant !== undefined) return JSON.stringify(constant);
  if (type === 'object' && required && required.length > 0)
    return `an object with ${required.map((r) => `"${r}"`).join(', ')}`;
  return typeof type === 'string' ? type : 'value';
}

/** Finds the problems of `value` against `schema`, paths prefixed by `base`, until `out` holds `max`. */
function collect(schema: TSchema, value: unknown, base: string, out: ErrorDetail[], max: number): void {
  if (out.length >= max) return;
  if (isDiscriminated(schema)) {
    const prop = schema.discriminator.propertyName;
    if (!isObject(value)) {
      out.push(detail(base, 'Expected object', value));
      return;
    }
    const tags = schema.anyOf.map((m) => tagOf(m, prop));
    const member = schema.anyOf.find((m) => tagOf(m, prop) === value[prop]);
    if (!member) {
      const message =
        value[prop] === undefined ? 'Expected required property' : `Expected one of: ${tags.join(', ')}`;
      out.push(detail(`${base}/${prop}`, message, value[prop]));
      return;
    }
    collect(member, value, base, out, max);
    return;
  }
  // Value.Errors is lazy: stopping here stops the walk.
  for (const e of Value.Errors(schema, value)) {
    if (out.length >= max) return;
    const path = base + e.path;
    if (e.type === ValueErrorType.Union && isDiscriminated(e.schema)) {
      collect(e.schema, e.value, path, out, max);
      continue;
    }
    let message = e.message;
    const anyOf = (e.schema as { anyOf?: (TSchema & { const?: unknown })[] }).anyOf;
    if (e.type === ValueErrorType.Union && anyOf) {
      if (anyOf.every((m) => m.const !== undefined)) {
        message = `Expected one of: ${anyOf.map((m) => String(m.const)).join(', ')}`;
      } else {
        // A nullable value or a value of several shapes: explain against the member of its JSON type,
        // and among several objects against the one that declares most of the value's properties.
        const same = anyOf.filter((m) => typeMatches(m, e.value));
        const member = same.length === 1 ? same[0] : closestObject(same, e.value);
        if (member) {
          collect(member, e.value, path, out, max);
          continue;
        }
        message = `Expected ${[...new Set(anyOf.map(shapeName))].join(' or ')}`;
      }
    }
    out.push(detail(path, message, e.value));
  }
}

/** The problems of `value` against `schema` (at most MAX_DETAILS), one per path (the first, most telling one). */
export function explain(schema: TSchema, value: unknown, base = ''): ErrorDetail[] {
  const all: ErrorDetail[] = [];
  collect(schema, value, base, all, MAX_DETAILS);
  const seen = new Set<string>();
  return all.filter((d) => (seen.has(d.path) ? false : (seen.add(d.path), true)));
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkerFor(schema: TSchema): TypeCheck<TSchema> {
  let c = compiled.get(schema);
  if (!c) compiled.set(schema, (c = TypeCompiler.Compile(schema)));
  return c;
}

/**
 * Arrays of `value` longer than their schema's `maxItems`, found by walking schema and value together
 * (a discriminated union by the member its tag names); an array over its bound is not entered.
 * Linear in the part of `value` the schema describes.
 */
function overlongArrays(schema: TSchema, value: unknown, base: string, out: ErrorDetail[]): void {
  if (out.length >= MAX_DETAILS) return;
  if (isDiscriminated(schema)) {
    if (!isObject(value)) return;
    const prop = schema.discriminator.propertyName;
    const member = schema.anyOf.find((m) => tagOf(m, prop) === value[prop]);
    if (member) overlongArrays(member, value, base, out);
    return;
  }
  const s = schema as {
    type?: unknown;
    maxItems?: number;
    items?: TSchema;
    properties?: Record<string, TSchema>;
  };
  if (s.type === 'array' && Array.isArray(value)) {
    if (s.maxItems !== undefined && value.length > s.maxItems) {
      out.push(detail(base, `Expected array length to be less or equal to ${s.maxItems}`, value.length));
      return;
    }
    if (s.items) for (const [i, item] of value.entries()) overlongArrays(s.items, item, `${base}/${i}`, out);
    return;
  }
  if (s.type === 'object' && isObject(value) && s.properties)
    for (const [k, sub] of Object.entries(s.properties))
      if (Object.hasOwn(value, k)) overlongArrays(sub, value[k], `${base}/${k}`, out);
}

/**
 * Applies `schema`'s defaults to a copy of `value` and checks it. Returns the completed value, or
 * throws the 400 validation_error with its findings (at most MAX_DETAILS).
 */
export function parseWith<T>(schema: TSchema, value: unknown, base = ''): T {
  const check = checkerFor(schema);
  if (!check.Check(value)) {
    // Before Value.Default walks it (a union's defaults are tried on every item: 200,000 rule
    // conditions held the event loop 5 s there), an array over its maxItems is refused as it is.
    const overlong: ErrorDetail[] = [];
    overlongArrays(schema, value, base, overlong);
    if (overlong.length > 0) throw validationError(overlong);
    // Defaults never make an unexpected property expected; the copy they are applied to would lose
    // an own `__proto__` key (Value.Clone assigns it), so `?__proto__=1` passed where `?bogus=1` did not.
    if (hasUnexpectedProperty(schema, value)) throw validationError(explain(schema, value, base));
  }
  if (!hasDefaults(schema)) {
    if (check.Check(value)) return value as T;
    throw validationError(explain(schema, value, base));
  }
  const v = Value.Default(schema, Value.Clone(value));
  if (check.Check(v)) return v as T;
  throw validationError(explain(schema, v, base));
}

/** Whether one of the first MAX_DETAILS problems of `value` is a property its schema does not allow. */
function hasUnexpectedProperty(schema: TSchema, value: unknown): boolean {
  let n = 0;
  for (const e of Value.Errors(schema, value)) {
    if (e.type === ValueErrorType.ObjectAdditionalProperties) return true;
    if (++n >= MAX_DETAILS) return false;
  }
  return false;
}

const withDefaults = new WeakMap<TSchema, boolean>();

/**
 * Whether `schema` gives a default anywhere. One without (a bulk rule list's `{ rules: unknown[] }`)
 * is checked as it is: copying a 4 MiB body to apply no default held the event loop 0.2 s.
 */
function hasDefaults(schema: TSchema): boolean {
  let known = withDefaults.get(schema);
  if (known === undefined) withDefaults.set(schema, (known = JSON.stringify(schema).includes('"default":')));
  return known;
}

const NUMBER_TEXT = /^-?\d+(\.\d+)?$/;

/**
 * Query-string and path values as the schema's types: a number written as a number (`5`, `2.5`; an
 * integer schema then refuses 2.5), `true` or `false` for a boolean. Anything else stays text, for the
 * schema to refuse (TypeBox's own conversion would read `2.5` as 2 and `1` as true).
 */
function fromQueryText(schema: TSchema, data: unknown): unknown {
  if (!isObject(data)) return data;
  const props = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const out: Record<string, unknown> = { ...data };
  for (const [k, v] of Object.entries(out)) {
    const t = Object.hasOwn(props, k) ? props[k]!.type : undefined;
    if (typeof v !== 'string') continue;
    if ((t === 'integer' || t === 'number') && NUMBER_TEXT.test(v)) out[k] = Number(v);
    else if (t === 'boolean' && (v === 'true' || v === 'false')) out[k] = v === 'true';
  }
  return out;
}

/**
 * Makes the routes of `app` (an encapsulated plugin) validate their TypeBox schemas with TypeBox and
 * answer errors as 400 validation_error with JSON-pointer details: the one validator of the API, so
 * that a body, a query and a path parameter are explained alike (`received` is JSON text). A missing body validates as `{}`,
 * so that a missing field is reported by name. Responses are written with JSON.stringify: the
 * response schemas document the API (OpenAPI) without trimming what handlers send.
 */
export function useTypeBox(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const s = schema as TSchema;
    // Query strings and path parameters arrive as text: `?limit=5` is the integer 5, `?ruleMatched=true`
    // the boolean (a value that does not convert, `?status=abc`, stays text and is refused).
    const fromText = httpPart === 'querystring' || httpPart === 'params';
    return (data: unknown) => {
      let input = httpPart === 'body' && (data === null || data === undefined) ? {} : data;
      if (fromText) input = fromQueryText(s, input);
      try {
        return { value: parseWith<unknown>(s, input) };
      } catch (err) {
        return { error: err as Error };
      }
    };
  });
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
}
