/**
 * The shapes the gRPC capability is built from (SPEC §13), shared by its parts: the wire (calls over
 * HTTP/2 and gRPC-Web), the descriptors an endpoint uploads, and the serving step that joins them to
 * rules and history.
 */

/** gRPC status codes (grpc/grpc doc/statuscodes.md). */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcStatusCode = (typeof GrpcStatus)[keyof typeof GrpcStatus];

/** The hosted service's names for a method's shape. */
export const CALL_TYPES = [
  'unary',
  'server_streaming',
  'client_streaming',
  'bidirectional_streaming',
] as const;
export type CallType = (typeof CALL_TYPES)[number];

/** One method of an endpoint's descriptors. */
export interface MethodInfo {
  /** Fully qualified service name: `user.UserService`. */
  service: string;
  /** The method's simple name: `GetUser`. */
  method: string;
  /** What a `grpc_method` condition compares: `user.UserService/GetUser`. */
  name: string;
  callType: CallType;
  /** Fully qualified message type names, without a leading dot. */
  inputType: string;
  outputType: string;
}

/** Request metadata: lower-case keys; a `-bin` key's value stays base64, as it came. */
export type Metadata = Record<string, string>;

/** How a call ends: the status, and what travels in the trailers with it. */
export interface CallEnd {
  code: number;
  message?: string;
  /** Extra trailers (never `grpc-*`). */
  trailers?: Metadata;
  /** A serialized `google.rpc.Status` for `grpc-status-details-bin`. */
  details?: Uint8Array;
}

/** How the transport closed a call. */
export interface CallClosed {
  /**
   * The client cut the call (reset the stream, closed the connection) before the end we sent had
   * gone out: it saw CANCELLED (or its own deadline), whatever status this side chose.
   */
  cancelled: boolean;
}

/**
 * One call as the serving code sees it, whatever carried it (HTTP/2, h2c, gRPC-Web over HTTP/1.1 or
 * HTTP/2). Messages are the protobuf binary of one message each, already out of their frames and
 * decompressed.
 */
export interface GrpcCall {
  /** `/pkg.Service/Method`. */
  readonly path: string;
  readonly metadata: Metadata;
  /** Carried as gRPC-Web. */
  readonly web: boolean;
  /** When the client's `grpc-timeout` runs out (ms since the epoch), if it sent one. */
  readonly deadline: number | undefined;
  /** Aborted when the client cancels, the deadline passes or the connection goes. */
  readonly signal: AbortSignal;
  /** The request messages, in order; ends when the client half-closes. Throws a CallError past a bound. */
  messages(): AsyncIterable<Uint8Array>;
  /** Response headers (sent with the first message or the end when not called). */
  sendHeaders(metadata?: Metadata): void;
  /** Sends one message; resolves once the transport can take more. */
  send(message: Uint8Array): Promise<void>;
  /** Ends the call; only the first call counts. Trailers-Only when no message was sent. */
  end(end: CallEnd): void;
  /**
   * Settles once the transport has closed the call (never rejects). A call may be cut after `end`:
   * a client's cancel sends END_STREAM, then RST_STREAM, so a bidirectional call may end OK here
   * before the reset is read; this says what the client was left with.
   */
  readonly closed: Promise<CallClosed>;
}

/** An error that ends a call with its status (a bound passed, a bad frame, an invalid answer). */
export class CallError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'CallError';
  }
}
