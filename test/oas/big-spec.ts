/** A large OpenAPI document for the bounds tests: `paths` path templates, each with its own schema. */
export function bigSpec(paths: number): Record<string, unknown> {
  const p: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < paths; i++) {
    schemas[`Thing${i}`] = {
      type: 'object',
      description:
        `Thing number ${i}, described at some length so that the document weighs what real ones do. `.repeat(
          3,
        ),
      required: ['id', 'name'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        name: { type: 'string', maxLength: 40 },
        email: { type: 'string', format: 'email' },
        count: { type: 'integer', minimum: 0, maximum: 10 },
        tags: { type: 'array', items: { type: 'string' } },
        parent: { $ref: `#/components/schemas/Thing${i}` },
      },
    };
    p[`/things${i}/{id}/parts/{partId}`] = {
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'partId', in: 'path', required: true, schema: { type: 'string' } },
      ],
      get: {
        operationId: `getThing${i}`,
        summary: `Get thing ${i}`,
        responses: {
          '200': {
            description: 'The thing',
            content: { 'application/json': { schema: { $ref: `#/components/schemas/Thing${i}` } } },
          },
          '404': { description: 'No such thing' },
        },
      },
      put: {
        operationId: `putThing${i}`,
        requestBody: {
          content: { 'application/json': { schema: { $ref: `#/components/schemas/Thing${i}` } } },
        },
        responses: { '204': { description: 'Stored' } },
      },
    };
  }
  return { openapi: '3.0.3', info: { title: 'Big', version: '1.0.0' }, paths: p, components: { schemas } };
}
