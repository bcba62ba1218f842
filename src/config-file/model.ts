/**
 * The mocks-as-code file format: one document whose `endpoints` map names each endpoint and gives
 * its settings (the API's SettingsPatch), rules (the API's rule inputs, plus `blobFile`), state seeds
 * (the state API's items), OpenAPI document (a file path) and HAR capture (a file path, har.ts). Rules and state items are checked
 * further by the rule parser and the state command's checks when the file is planned (plan.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import { MAX_RULES, SettingsPatch } from '../mock/index.js';
import { HarRef } from './har.js';

export const StateSeed = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 20, description: 'counter, string or list' }),
    key: Type.String({ minLength: 1 }),
    value: Type.Unknown(),
  },
  { additionalProperties: false },
);

export const OpenapiRef = Type.Union([
  Type.String({ minLength: 1, description: 'path of the document, relative to the file' }),
  Type.Object(
    { file: Type.String({ minLength: 1 }), intelligenceMock: Type.Optional(Type.Boolean()) },
    { additionalProperties: false },
  ),
]);

export const EndpointConfig = Type.Object(
  {
    settings: Type.Optional(SettingsPatch),
    rules: Type.Optional(Type.Array(Type.Unknown({ description: 'a rule' }), { maxItems: MAX_RULES })),
    har: Type.Optional(HarRef),
    state: Type.Optional(Type.Array(StateSeed, { maxItems: 1000 })),
    openapi: Type.Optional(OpenapiRef),
    grpc: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'path of a .proto or a compiled descriptor set, relative to the file (SPEC §13)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ConfigFile = Type.Object(
  {
    version: Type.Optional(Type.Literal(1)),
    endpoints: Type.Record(Type.String(), EndpointConfig),
  },
  { additionalProperties: false },
);

export type EndpointConfig = Static<typeof EndpointConfig>;
export type ConfigFile = Static<typeof ConfigFile>;
