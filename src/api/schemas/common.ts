/**
 * Schemas shared by the management API's routes: the error body, path parameters, envelopes. The
 * primitives the models use too (header lists, statuses, bodies) live in src/schema/.
 */
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
  ep: Type.String({ minLength: 1, maxLength: 100, description: 'endpoint name', examples: ['shop'] }),
});

export const RuleParams = Type.Object({
  ep: Type.String({ description: 'endpoint name', examples: ['shop'] }),
  ruleId: Type.String({ description: 'rule id' }),
});

/** `{ "data": T }`. */
export function DataOf<T extends TSchema>(t: T) {
  return Type.Object({ data: t });
}

/** `{ "id", "deleted": true }`, the answer of a single delete. */
export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });
