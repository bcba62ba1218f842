/** Local upstreams (node:http on 127.0.0.1, port 0) and a raw HTTP client for the proxy's tests. */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { ALLOW_LOOPBACK, startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import type { Config } from '../../src/config.js';

export interface Seen {
  method: string;
  url: string;
  rawHeaders: string[];
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface Upstream {
  url: string;
  port: number;
  seen: Seen[];
  close(): Promise<void>;
}

/** An upstream that records each request (body read whole) and answers with `handler`. */
export async function upstream(
  handler: (req: IncomingMessage, res: ServerResponse, body: Buffer) => unknown,
): Promise<Upstream> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        rawHeaders: req.rawHeaders,
        headers: req.headers,
        body,
      });
      void handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface Received {
  status: number;
  headers: http.IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
  text: string;
}

/** One request with node:http (no redirect following, raw headers kept). */
export function send(
  url: string,
  opts: { method?: string; headers?: http.OutgoingHttpHeaders | string[]; body?: Buffer | string } = {},
): Promise<Received> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body,
          text: body.toString('utf8'),
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Values of header `name` in a raw header list, in order. */
export function rawValues(raw: readonly string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) out.push(raw[i + 1]!);
  return out;
}

/**
 * An app on a real port with endpoint `shop` proxying to `target` (null: no proxy). Its upstreams are
 * local servers: loopback is allowed (ALLOW_LOOPBACK) unless `overrides` sets `proxyAllow` itself.
 */
export async function proxyApp(
  target: string | null,
  overrides: Partial<Config> = {},
  proxy: Record<string, unknown> = {},
): Promise<TestApp & { endpointUrl: string }> {
  const app = await startApp({ ...ALLOW_LOOPBACK, ...overrides }, { listen: true });
  await createEndpoint(app, 'shop');
  const r = await call(app, 'PATCH', '/endpoints/shop/settings', { proxy: { targetUrl: target, ...proxy } });
  assert.equal(r.status, 200, r.text);
  return Object.assign(app, { endpointUrl: `${app.url}/e/shop` });
}

/** The endpoint's history, newest first, verbose. */
export async function historyOf(app: TestApp, endpoint = 'shop') {
  await app.ctx.history.flush();
  return (await app.ctx.store.listHistory(endpoint, {}, 100)).data;
}
