/**
 * Where a tunnel client connects, and who may: `GET /api/v2/endpoints/:ep/tunnel` as a WebSocket
 * upgrade, with an API key allowed on the endpoint (checked by the API before the handshake is
 * completed) and no foreign `Origin`. A browser cannot put a key in a WebSocket's headers today, so the
 * key check alone stops a page; the Origin check keeps it that way should the key ever travel another
 * way (a query token, a cookie): a page of another site must never hold an endpoint's traffic. The
 * `mockingbird tunnel` client sends no Origin.
 */
import type { IncomingMessage, IncomingHttpHeaders } from 'node:http';

/** The route, relative to the API's `/api/v2` prefix. */
export const TUNNEL_ROUTE = '/endpoints/:ep/tunnel';

const TUNNEL_PATH = /^\/api\/v2\/endpoints\/[^/?]+\/tunnel\/?(?:\?|$)/;

/** Whether an upgrade request is for the tunnel route (the only route that takes an upgrade). */
export function isTunnelUpgrade(req: IncomingMessage): boolean {
  return TUNNEL_PATH.test(req.url ?? '');
}

/** Why the request's `Origin` may not open a tunnel, or undefined when it may (none, or the server's own). */
export function tunnelOriginProblem(headers: IncomingHttpHeaders): string | undefined {
  const origin = headers.origin;
  if (origin === undefined) return undefined;
  let host: string;
  try {
    host = new URL(origin).host.toLowerCase();
  } catch {
    return `The Origin "${origin.slice(0, 100)}" is not valid.`;
  }
  if (host !== '' && host === (headers.host ?? '').toLowerCase()) return undefined;
  return `A tunnel cannot be opened from the web page of another site (Origin ${origin.slice(0, 100)}).`;
}
