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
// ---- status details and reflection ----
export {
  encodeStatus,
  checkDetails,
  googleRpcRegistry,
  GOOGLE_RPC_DETAIL_TYPES,
  GRPC_MAX_STATUS_DETAILS,
} from './status-details.js';
export { serveReflection, REFLECTION_PATHS } from './reflection.js';
// ---- end status details and reflection ----
