/**
 * The heavy half of the gRPC capability, loaded on first use through `grpcRuntime()` (index.ts): the
 * .proto compiler, the descriptors an endpoint serves from, status details and reflection, with
 * @bufbuild/protobuf, protobufjs and the fake data of generated answers. It imports nothing of index.ts:
 * index.ts names it (the loader's type), never the other way round.
 */
// ---- descriptors: uploads compiled, messages between binary and JSON, status details, reflection ----
export {
  compileUpload,
  compileProtoSources,
  GRPC_SPEC_MAX_DEPTH,
  GRPC_SPEC_MAX_FIELDS,
  GRPC_SPEC_MAX_FILES,
  GRPC_SPEC_MAX_TYPES,
} from './compile.js';
export { loadDescriptors, methodInfosOf, GRPC_RECURSION_LIMIT } from './descriptors.js';
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
export { serveReflection } from './reflection.js';
// ---- end status details and reflection ----
