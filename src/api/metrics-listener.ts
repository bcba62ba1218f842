/**
 * METRICS_PORT: `GET /metrics` on a listener of its own, without a key, for a scraper on a private
 * network (bind it to such an address with METRICS_HOST). It serves that one path: anything else is
 * 404, another method on it 405, in the API's error shape.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorBody } from '../errors.js';
import type { ApiDeps } from './deps.js';

export interface MetricsListener {
  /** The port it listens on (METRICS_PORT, or the one the system chose for 0). */
  port: number;
  close(): Promise<void>;
}

function json(status: number, body: unknown): [number, Record<string, string>, string] {
  return [status, { 'content-type': 'application/json; charset=utf-8' }, JSON.stringify(body)];
}

/** Listens on `host:port`; rejects when it cannot (the port taken, an address not of this machine). */
export async function listenMetrics(
  ctx: Pick<ApiDeps, 'metrics' | 'log'>,
  host: string,
  port: number,
): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const answer = async (): Promise<[number, Record<string, string>, string]> => {
      if (path !== '/metrics') return json(404, errorBody('not_found', `No route ${path}; try /metrics.`));
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return json(405, errorBody('method_not_allowed', 'GET /metrics only.'));
      return [200, { 'content-type': ctx.metrics.contentType }, await ctx.metrics.text()];
    };
    req.resume();
    answer()
      .catch((err: unknown): [number, Record<string, string>, string] => {
        ctx.log.error({ err }, 'metrics scrape failed');
        return json(500, errorBody('internal_error'));
      })
      .then(([status, headers, body]) => {
        res.writeHead(status, { ...headers, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      })
      .catch(() => res.destroy());
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
