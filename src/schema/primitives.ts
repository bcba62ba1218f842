/**
 * TypeBox building blocks shared by the models (rules, settings) and the management API: HTTP header
 * names and lists, statuses, bodies, and two combinators TypeBox lacks (nullable, string enum).
 */
import { Type, type SchemaOptions, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';

const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";

/** An HTTP header name (RFC 9110 token). */
export const HeaderName = Type.String({ minLength: 1, maxLength: 256, pattern: HEADER_NAME_PATTERN });

/**
 * A header value as stored for an answer: tab, visible ASCII and Latin-1 only, what Node writes. CR,
 * LF or NUL would split the header, and a character past U+00FF (or another control character) makes
 * Node refuse it with a 500 at every request to the endpoint. Checked when it is saved.
 */
export const HeaderValue = Type.String({
  maxLength: 8192,
  pattern: '^[\\t\\u0020-\\u007e\\u0080-\\u00ff]*$',
  description:
    'tab, U+0020-U+007E and U+0080-U+00FF only (Latin-1; no CR, LF, NUL or other control characters)',
});

/** Response headers as a list, the form rules use: `[{ "key", "value" }]`. */
export const HeaderList = Type.Array(
  Type.Object({ key: HeaderName, value: HeaderValue }, { additionalProperties: false }),
  { maxItems: 100 },
);

/** Response headers as an object: header name to value. */
export const HeaderMap = Type.Record(
  Type.String({ pattern: HEADER_NAME_PATTERN, maxLength: 256 }),
  HeaderValue,
  // Without it TypeBox would accept any key: a name that is not a header token is an unexpected property.
  { additionalProperties: false, description: 'header name to value' },
);

/** An HTTP status a mock may answer with. */
/** A DNS host name: labels of letters, digits and inner hyphens, at most 253 characters in all. */
export const HostName = Type.String({
  minLength: 1,
  maxLength: 254,
  pattern:
    '^(?=.{1,253}\\.?$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\\.?$',
  examples: ['api.example.com'],
});

export const Status = Type.Integer({ minimum: 100, maximum: 599 });

/** A response body as text. */
export const Body = Type.String({ maxLength: 10 * 1024 * 1024 });

/** `T` or null. */
export function Nullable<T extends TSchema>(t: T) {
  return Type.Union([t, Type.Null()]);
}

/** A union of string constants (TypeBox has no string enum of its own). */
export function StringEnum<const T extends string>(
  values: readonly T[],
  options: SchemaOptions = {},
): TUnion<TLiteral<T>[]> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  );
}
