/** gRPC mocking (SPEC §13): the wire, the descriptors an endpoint uploads, reflection. */
export * from './types.js';

// --- The wire (grpc-wire): framing, grpc-timeout, calls over HTTP/2 and gRPC-Web, h2c and h2 over TLS.
export {
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_MESSAGE_BYTES,
  FrameDecoder,
  decodeMessage,
  encodeFrame,
  encodeMessage,
} from './frames.js';
export { parseGrpcTimeout } from './timeout.js';
export type { CallOptions, GrpcHandler, WireCall } from './wire-common.js';
export { createH2Call, serveH2Call } from './h2-call.js';
export {
  answerWebPreflight,
  serveWebCall,
  webExchange,
  webExchangeH2,
  type WebExchange,
} from './web-call.js';
export {
  DEFAULT_H2_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_CONCURRENT_STREAMS,
  DEFAULT_MAX_HEADER_LIST_BYTES,
  acceptH2OverTls,
  acceptH2c,
  isGrpc,
  isGrpcWeb,
  selectAlpn,
  type H2Acceptor,
  type H2Options,
  type StreamHandler,
} from './transport.js';

// ---- Descriptors uploaded through the specs API (branch grpc-upload) ----
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

// ---- what the service reads at start; the protobuf runtime itself is loaded on first use ----
export { GRPC_SPEC_LIMIT, REFLECTION_PATHS } from './constants.js';
export type { CompiledUpload, SpecLimits } from './compile.js';
export type { EncodedAnswer, EndpointDescriptors } from './descriptors.js';
/**
 * The compiler, the descriptors, status details and reflection, with the protobuf runtime and the fake
 * data they draw on: loaded on the first upload or call that needs them, not at start (a quarter of the
 * start's CPU otherwise, against `npm start`'s 3 s).
 */
export const grpcRuntime = (): Promise<typeof import('./runtime.js')> => import('./runtime.js');

// ---- playing a plan on a call ----
export { answerOnce, answerStream, answerTurn, endTurns, pause, type GrpcPlan } from './respond.js';
