/** Helpers for the tunnel tests: a local target service, the real `mockingbird tunnel` process, API calls. */
import http from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { CLI, childEnv } from '../helpers/cli.js';
import { ADMIN_KEY } from '../helpers/app.js';

export interface Target {
  port: number;
  /** Requests seen, in order. */
  seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }[];
  close(): Promise<void>;
}

/** A local service on 127.0.0.1, port 0, answering with `handler` once the body is read. */
export async function startTarget(
  handler: (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void,
): Promise<Target> {
  const seen: Target['seen'] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A port on 127.0.0.1 that nothing listens on (taken and released). */
export async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface TunnelCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once the client has printed `Tunnel connected` `times` times in all. */
  connected(times?: number, timeoutMs?: number): Promise<void>;
  exited: Promise<number | null>;
}

/** Runs `mockingbird tunnel` against `serverPort` for `endpoint`, forwarding to `targetPort`. */
export function startTunnelCli(
  serverPort: number,
  endpoint: string,
  targetPort: number,
  key = ADMIN_KEY,
): TunnelCli {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      CLI,
      'tunnel',
      '--endpoint',
      endpoint,
      '--port',
      String(targetPort),
      '--server',
      `http://127.0.0.1:${serverPort}`,
      '--api-key',
      key,
    ],
    { env: childEnv() },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async connected(times = 1, timeoutMs = 15_000) {
      const end = Date.now() + timeoutMs;
      while ((out.match(/Tunnel connected/g) ?? []).length < times) {
        if (Date.now() > end || child.exitCode !== null)
          throw new Error(`tunnel did not connect; stdout: ${out} stderr: ${err}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

/** A JSON call to the management API of the server on `port` with the admin key. */
export async function api(port: number, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v2${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_KEY}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

/** Creates `name` with `localTunnel` on. */
export async function tunnelEndpoint(port: number, name: string, localTunnel = true): Promise<void> {
  await api(port, 'POST', '/endpoints', { name });
  await api(port, 'PATCH', `/endpoints/${name}/settings`, { localTunnel });
}
