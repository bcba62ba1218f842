/** gRPC mocking (SPEC §13): the wire, the descriptors an endpoint uploads, reflection. */
export * from './types.js';

// ---- Descriptors uploaded through the specs API (branch grpc-upload) ----
export { compileUpload, GRPC_SPEC_LIMIT, type CompiledUpload } from './compile.js';
export {
  compileInWorker,
  GRPC_COMPILES_AT_ONCE,
  GRPC_COMPILES_WAITING,
  GRPC_COMPILE_TIMEOUT_MS,
  GRPC_COMPILE_HEAP_MB,
} from './compile-run.js';
export {
  grpcSpecOf,
  grpcSpecRecord,
  grpcSpecView,
  grpcUploadView,
  servicesOf,
  type GrpcSpecView,
  type ServiceView,
} from './spec.js';
