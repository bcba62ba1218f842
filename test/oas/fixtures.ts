/** OpenAPI documents for the OpenAPI-mocking tests: a petstore-like 3.0 (YAML), a 3.1 and a Swagger 2.0. */

/** OpenAPI 3.0, YAML, with `$ref`s, examples (single and named), a path template and a 404. */
export const PETSTORE_30_YAML = `openapi: 3.0.3
info:
  title: Petstore
  version: 1.0.0
servers:
  - url: https://petstore.example.com/v1
paths:
  /pets:
    get:
      operationId: listPets
      summary: List all pets
      parameters:
        - name: limit
          in: query
          required: false
          schema: { type: integer, maximum: 100 }
      responses:
        '200':
          description: A page of pets
          headers:
            x-next:
              description: The next page
              schema: { type: string }
              example: /pets?page=2
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Pets'
              example:
                - { id: 1, name: Rex, tag: dog }
        default:
          description: unexpected error
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Error' }
    post:
      operationId: createPet
      requestBody:
        content:
          application/json:
            schema: { $ref: '#/components/schemas/Pet' }
      responses:
        '201':
          description: Created
        '400':
          description: Bad pet
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Error' }
  /pets/mine:
    get:
      operationId: myPets
      responses:
        '200':
          description: mine
          content:
            text/plain:
              schema: { type: string }
              example: just mine
  /pets/{petId}:
    get:
      operationId: showPetById
      parameters:
        - name: petId
          in: path
          required: true
          schema: { type: string }
      responses:
        '200':
          description: One pet
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Pet' }
              examples:
                cat: { value: { id: 2, name: Tom, tag: cat } }
                dog: { value: { id: 3, name: Rex, tag: dog } }
            application/xml:
              schema: { $ref: '#/components/schemas/Pet' }
        '404':
          description: No such pet
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Error' }
              example: { code: 404, message: no such pet }
components:
  schemas:
    Pet:
      type: object
      required: [id, name]
      properties:
        id: { type: integer, format: int64 }
        name: { type: string }
        tag: { type: string }
    Pets:
      type: array
      maxItems: 100
      items: { $ref: '#/components/schemas/Pet' }
    Error:
      type: object
      required: [code, message]
      properties:
        code: { type: integer, format: int32 }
        message: { type: string }
`;

/** OpenAPI 3.1 (JSON): no examples, so everything is generated; a recursive schema; type lists. */
export const USERS_31 = {
  openapi: '3.1.0',
  info: { title: 'Users', version: '2.1.0' },
  paths: {
    '/users/{userId}': {
      parameters: [
        { name: 'userId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
      ],
      get: {
        operationId: 'getUser',
        responses: {
          '200': {
            description: 'A user',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } },
          },
        },
      },
    },
    '/files/{name}.{ext}': {
      parameters: [
        { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'ext', in: 'path', required: true, schema: { type: 'string' } },
      ],
      get: {
        responses: {
          '2XX': {
            description: 'A file description',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['size'],
                  properties: { size: { type: 'integer', minimum: 1, maximum: 10 } },
                  additionalProperties: false,
                },
              },
            },
          },
        },
      },
    },
    '/tree': {
      get: {
        responses: {
          '200': {
            description: 'A tree',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      User: {
        type: 'object',
        required: ['id', 'email', 'firstName', 'createdAt', 'roles'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', format: 'uuid' },
          email: { type: 'string' },
          firstName: { type: 'string' },
          lastName: { type: ['string', 'null'] },
          website: { type: 'string', format: 'uri' },
          createdAt: { type: 'string', format: 'date-time' },
          age: { type: 'integer', minimum: 18, maximum: 120 },
          roles: { type: 'array', minItems: 1, maxItems: 3, items: { enum: ['admin', 'user'] } },
          password: { type: 'string', writeOnly: true },
          address: {
            type: 'object',
            required: ['city'],
            properties: { city: { type: 'string' }, zip: { type: 'string', pattern: '^[0-9]{5}$' } },
          },
        },
      },
      Node: {
        type: 'object',
        required: ['name', 'children'],
        properties: {
          name: { type: 'string' },
          children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
          parent: { $ref: '#/components/schemas/Node' },
        },
      },
    },
  },
};

/** Swagger 2.0 (JSON) with a basePath, `produces`, examples by media type and a definitions `$ref`. */
export const STORE_20 = {
  swagger: '2.0',
  info: { title: 'Store', version: '0.9' },
  basePath: '/api',
  produces: ['application/json'],
  paths: {
    '/orders/{orderId}': {
      get: {
        parameters: [{ name: 'orderId', in: 'path', required: true, type: 'integer' }],
        responses: {
          '200': {
            description: 'An order',
            schema: { $ref: '#/definitions/Order' },
            headers: { 'X-Rate-Limit': { type: 'integer', minimum: 5, maximum: 5 } },
          },
          '404': { description: 'Not found', examples: { 'application/json': { error: 'no order' } } },
        },
      },
      delete: {
        parameters: [{ name: 'orderId', in: 'path', required: true, type: 'integer' }],
        responses: { '204': { description: 'Deleted' } },
      },
    },
  },
  definitions: {
    Order: {
      type: 'object',
      required: ['id', 'status', 'contactEmail'],
      properties: {
        id: { type: 'integer', format: 'int64' },
        status: { type: 'string', enum: ['placed', 'shipped'] },
        contactEmail: { type: 'string', format: 'email' },
        shipDate: { type: 'string', format: 'date-time' },
      },
    },
  },
};
