/**
 * The gRPC door (SPEC §13): every gRPC call, whatever carried it (HTTP/2 on the TLS port, h2c on the
 * cleartext one, gRPC-Web over either HTTP version), comes in here as a call of the wire (grpc/) and
 * goes to the endpoint it names:
 *
 *   x-mockingbird-endpoint metadata → the path form (/e/<name>/pkg.Service/Method, either HTTP version)
 *   → :authority as a Host names an endpoint (<name>.<BASE_DOMAIN>, a claimed domain)
 *   none, or an endpoint that does not exist → NOT_FOUND, saying how to name one
 *   a user endpoint → its gRPC service (mock/grpc-service.ts) to the call's end
 *
 * The built-in echo answers HTTP only: a call to it is UNIMPLEMENTED.
 */
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { endpointTarget, PATH_FORM_PREFIX, type Target } from '../endpoint/index.js';
import {
  GrpcStatus,
  isGrpcWeb,
  serveH2Call,
  serveWebCall,
  webExchange,
  webExchangeH2,
  type CallOptions,
  type WireCall,
} from '../grpc/index.js';
import type { CallTransport, Endpoint } from '../mock/index.js';

export interface GrpcDoorOptions {
  /** The endpoint a name names, if it exists and is a user endpoint (not the echo). */
  resolve(name: string): Promise<Endpoint | 'built-in' | undefined>;
  /** The endpoint an `:authority` names (endpoint/dispatch.ts endpointNamer). */
  named(authority: string | undefined): string | undefined;
  /** Serves a call of a user endpoint to its end. */
  serve(call: WireCall, endpoint: Endpoint, t: CallTransport): Promise<void>;
  /** Bounds of each call (message size, messages held unread). */
  call: CallOptions;
}

export interface GrpcDoor {
  /** A gRPC or gRPC-Web stream of an HTTP/2 connection. */
  stream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, socket: Socket): void;
  /** A gRPC-Web request over HTTP/1.1 (or its CORS preflight); `target` when it came in the path form. */
  web(req: IncomingMessage, res: ServerResponse, target: Target | undefined): void;
}

/** Whether an HTTP/1.1 request is gRPC-Web: its content type, or a preflight asking for `x-grpc-web`. */
export function isGrpcWebRequest(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  if (type !== undefined) return isGrpcWeb(type);
  if (req.method !== 'OPTIONS') return false;
  const asked = req.headers['access-control-request-headers'];
  return asked !== undefined && /(^|[\s,])x-grpc-web([\s,]|$)/i.test(asked);
}

/**
 * The path form of an HTTP/2 stream's `:path` (`/e/<name>/pkg.Service/Method`, as connect clients send
 * with a base URL ending in `/e/<name>`): the endpoint's name and the method's path, or undefined when
 * the path is a method path itself (a service `e` without a package stays one).
 */
export function pathFormOf(path: string): { name: string; path: string } | undefined {
  if (!path.startsWith(PATH_FORM_PREFIX)) return undefined;
  const t = endpointTarget(path);
  return t.name !== '' && /^\/[^/?]+\/[^/?]+$/.test(t.path) ? { name: t.name, path: t.path } : undefined;
}

const HOW_TO_NAME =
  'name the endpoint with the :authority <name>.<BASE_DOMAIN> (grpcurl -authority), a domain it claims, or the metadata x-mockingbird-endpoint';

export function grpcDoor(o: GrpcDoorOptions): GrpcDoor {
  const route = async (call: WireCall, t: CallTransport, pathName: string | undefined): Promise<void> => {
    const name = (
      call.metadata['x-mockingbird-endpoint'] ??
      pathName ??
      o.named(call.authority)
    )?.toLowerCase();
    if (name === undefined || name === '') {
      call.end({ code: GrpcStatus.NOT_FOUND, message: `No endpoint named: ${HOW_TO_NAME}.` });
      return;
    }
    const endpoint = await o.resolve(name);
    if (endpoint === 'built-in') {
      call.end({
        code: GrpcStatus.UNIMPLEMENTED,
        message: `The built-in endpoint "${name}" answers HTTP only.`,
      });
      return;
    }
    if (!endpoint) {
      call.end({ code: GrpcStatus.NOT_FOUND, message: `The endpoint "${name}" does not exist.` });
      return;
    }
    await o.serve(call, endpoint, t);
  };

  return {
    stream(stream, headers, socket) {
      const t: CallTransport = { socket, httpVersion: '2.0' };
      // The path form names the endpoint over HTTP/2 as it does over HTTP/1.1 (dispatch.ts).
      const form = pathFormOf(headers[':path'] ?? '/');
      if (isGrpcWeb(headers['content-type']) || headers[':method'] === 'OPTIONS') {
        void serveWebCall(
          webExchangeH2(stream, headers),
          form?.path ?? headers[':path'] ?? '/',
          (call) => route(call, t, form?.name),
          o.call,
        );
        return;
      }
      const h = form ? { ...headers, ':path': form.path } : headers;
      void serveH2Call(stream, h, (call) => route(call, t, form?.name), o.call);
    },
    web(req, res, target) {
      const t: CallTransport = { socket: req.socket, httpVersion: req.httpVersion };
      // The path form names the endpoint, and the method's path is what follows it.
      const path = target?.pathForm ? target.path : (req.url ?? '/');
      void serveWebCall(
        webExchange(req, res),
        path.split('?')[0]!,
        (call) => route(call, t, target?.pathForm ? target.name : undefined),
        o.call,
      );
    },
  };
}
