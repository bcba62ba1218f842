/**
 * The wire tests' fixture: an HTTP/1.1 server on port 0 with h2c (and, when asked, TLS with h2), calls
 * served by a given handler, and a grpc-js client with identity serializers (no descriptors).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { acceptH2c, isGrpcWeb, type H2Acceptor, type H2Options } from '../../src/grpc/transport.js';
import { serveH2Call } from '../../src/grpc/h2-call.js';
import { serveWebCall, webExchange, webExchangeH2 } from '../../src/grpc/web-call.js';
import type { CallOptions, GrpcHandler } from '../../src/grpc/wire-common.js';

export interface Served {
  server: Server;
  acceptor: H2Acceptor;
  port: number;
  close(): Promise<void>;
}

/** Answers HTTP/1.1: gRPC-Web (and its preflight) to `handler`, anything else `http1 <path>`. */
export function http1Handler(handler: GrpcHandler, options: CallOptions = {}) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const web = isGrpcWeb(req.headers['content-type']) || req.method === 'OPTIONS';
    if (web) {
      void serveWebCall(webExchange(req, res), (req.url ?? '/').split('?')[0] ?? '/', handler, options);
      return;
    }
    req.resume();
    res.end(`http1 ${req.url}`);
  };
}

/** An HTTP/1.1 server with h2c on one port 0, calls served by `handler`. */
export async function serveH2c(handler: GrpcHandler, options: H2Options & CallOptions = {}): Promise<Served> {
  const server = createServer(http1Handler(handler, options));
  const acceptor = acceptH2c(
    server,
    (stream, headers) => {
      if (isGrpcWeb(headers['content-type']) || headers[':method'] === 'OPTIONS') {
        void serveWebCall(webExchangeH2(stream, headers), String(headers[':path']), handler, options);
      } else void serveH2Call(stream, headers, handler, options);
    },
    options,
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    acceptor,
    port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const id = (b: Buffer) => b;
function method(path: string, requestStream: boolean, responseStream: boolean) {
  return {
    path,
    requestStream,
    responseStream,
    requestSerialize: id,
    requestDeserialize: id,
    responseSerialize: id,
    responseDeserialize: id,
  };
}

/** The four call shapes, all on `/test.Echo/<Shape>`. */
export const EchoClient = grpc.makeGenericClientConstructor(
  {
    Unary: method('/test.Echo/Unary', false, false),
    ServerStream: method('/test.Echo/ServerStream', false, true),
    ClientStream: method('/test.Echo/ClientStream', true, false),
    Bidi: method('/test.Echo/Bidi', true, true),
  },
  'Echo',
);

type Callback = (err: grpc.ServiceError | null, value?: Buffer) => void;
/** The client's methods, typed loosely enough for identity serializers. */
export interface Echo extends grpc.Client {
  Unary(req: Buffer, md: grpc.Metadata, opts: grpc.CallOptions, cb: Callback): grpc.ClientUnaryCall;
  ServerStream(req: Buffer, md?: grpc.Metadata, opts?: grpc.CallOptions): grpc.ClientReadableStream<Buffer>;
  ClientStream(md: grpc.Metadata, opts: grpc.CallOptions, cb: Callback): grpc.ClientWritableStream<Buffer>;
  Bidi(md?: grpc.Metadata, opts?: grpc.CallOptions): grpc.ClientDuplexStream<Buffer, Buffer>;
}

/** A grpc-js client for `127.0.0.1:port` over h2c. */
export function echoClient(
  port: number,
  creds = grpc.credentials.createInsecure(),
  opts: grpc.ClientOptions = {},
) {
  return new EchoClient(`127.0.0.1:${port}`, creds, opts) as unknown as Echo;
}

/** A unary call as a promise of its answer or its error. */
export function unary(
  client: Echo,
  req: Buffer,
  md = new grpc.Metadata(),
  opts: grpc.CallOptions = {},
): Promise<{ err: grpc.ServiceError | null; value: Buffer | undefined; headers: grpc.Metadata | undefined }> {
  return new Promise((resolve) => {
    let headers: grpc.Metadata | undefined;
    const call = client.Unary(req, md, opts, (err, value) => resolve({ err, value, headers }));
    call.on('metadata', (m: grpc.Metadata) => (headers = m));
  });
}

/** What a raw HTTP/2 request got back: response headers, trailers (absent for Trailers-Only), body. */
export interface RawAnswer {
  headers: Record<string, string | string[] | undefined>;
  trailers: Record<string, string | string[] | undefined> | undefined;
  body: Buffer;
}

/** One request with Node's HTTP/2 client: `headers` and `body` as given, the answer as it came. */
export function rawH2(port: number, headers: Record<string, string>, body: Buffer = Buffer.alloc(0)) {
  return new Promise<RawAnswer>((resolve, reject) => {
    const session = connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const req = session.request({
      ':method': 'POST',
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
    const chunks: Buffer[] = [];
    let head: RawAnswer['headers'] = {};
    let trailers: RawAnswer['trailers'];
    req.on('response', (h) => (head = h));
    req.on('trailers', (t) => {
      trailers = t;
    });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', reject);
    req.on('close', () => {
      session.close();
      resolve({ headers: head, trailers, body: Buffer.concat(chunks) });
    });
    req.end(body);
  });
}
