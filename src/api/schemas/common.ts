/** Schemas shared by the management API's routes: the error body, path parameters, header lists. */
import { Type, type TSchema } from '@sinclair/typebox';

/** The one error body of the API (src/errors.ts). */
export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ examples: ['validation_error'] }),
      message: Type.String(),
      details: Type.Optional(
        Type.Array(
          Type.Object({
            path: Type.String({ description: 'JSON pointer into the input', examples: ['/action/status'] }),
            message: Type.String(),
            received: Type.Optional(Type.String({ description: 'the offending value, as JSON text' })),
          }),
        ),
      ),
    }),
  },
  { title: 'Error' },
);

/** Routes without query parameters: an unknown one is a 400, never silently ignored (SPEC §4). */
export const NoQuery = Type.Object({}, { additionalProperties: false });

export const EndpointParams = Type.Object({
  ep: Type.String({ description: 'endpoint name', examples: ['shop'] }),
});

export const RuleParams = Type.Object({
  ep: Type.String({ description: 'endpoint name', examples: ['shop'] }),
  ruleId: Type.String({ description: 'rule id' }),
});

/** An HTTP header name (RFC 9110 token). */
export const HeaderName = Type.String({
  minLength: 1,
  maxLength: 256,
  pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
});

/** Response headers as a list, the form rules use: `[{ "key", "value" }]`. */
export const HeaderList = Type.Array(
  Type.Object({ key: HeaderName, value: Type.String({ maxLength: 8192 }) }, { additionalProperties: false }),
  { maxItems: 100 },
);

/** An HTTP status a mock may answer with. */
export const Status = Type.Integer({ minimum: 100, maximum: 599 });

/** A response body as text. */
export const Body = Type.String({ maxLength: 10 * 1024 * 1024 });

/** `T` or null. */
export function Nullable<T extends TSchema>(t: T) {
  return Type.Union([t, Type.Null()]);
}

/** `{ "data": T }`. */
export function DataOf<T extends TSchema>(t: T) {
  return Type.Object({ data: t });
}

/** `{ "id", "deleted": true }`, the answer of a single delete. */
export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });
