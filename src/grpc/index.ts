/** gRPC mocking (SPEC §13): the wire, the descriptors an endpoint uploads, reflection. */
export * from './types.js';

// ---- descriptors: uploads compiled, messages between binary and JSON, status details, reflection ----
export {
  compileUpload,
  compileProtoSources,
  GRPC_SPEC_LIMIT,
  GRPC_SPEC_MAX_DEPTH,
  GRPC_SPEC_MAX_FIELDS,
  GRPC_SPEC_MAX_FILES,
  GRPC_SPEC_MAX_TYPES,
  type CompiledUpload,
  type SpecLimits,
} from './compile.js';
export {
  loadDescriptors,
  methodInfosOf,
  GRPC_RECURSION_LIMIT,
  type EndpointDescriptors,
} from './descriptors.js';
export { GRPC_GENERATE_DEPTH, GRPC_GENERATE_NODES } from './generate-message.js';
// ---- end descriptors ----
