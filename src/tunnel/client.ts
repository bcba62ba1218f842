/**
 * The tunnel client behind `mockingbird tunnel` (SPEC §7): holds a WebSocket to the server's tunnel
 * route, sends each request that comes through it to the local service (`http://host:port`), and
 * streams the answer back, slowed down when the server asks (pause/resume) or when the WebSocket
 * cannot keep up. One line per request goes to `out`. A lost connection is retried with jittered
 * exponential backoff (0.5 s to 30 s); a refusal no retry can fix (a bad key, an unknown endpoint)
 * ends the tunnel with exit code 1.
 */
import http from 'node:http';
import { WebSocket, type RawData } from 'ws';
import {
  bodyFrame,
  BODY_CHUNK,
  MAX_FRAME,
  parseServerFrame,
  readBodyFrame,
  type ClientFrame,
  type FailureReason,
  type RequestFrame,
} from './protocol.js';

export interface TunnelOptions {
  /** The Mockingbird server, `http(s)://host:port`. */
  server: string;
  endpoint: string;
  apiKey: string;
  /** The local service. */
  targetHost: string;
  targetPort: number;
  /** One line per request and per connection change. */
  out(line: string): void;
  /** Problems and retries. */
  err(line: string): void;
  /** Backoff bounds (ms). */
  minDelayMs?: number;
  maxDelayMs?: number;
}

export interface TunnelHandle {
  /** Resolves with the exit code when the tunnel stops for good: 0 after stop(), 1 after a refusal. */
  done: Promise<number>;
  /** Closes the tunnel: requests in progress are abandoned. */
  stop(): Promise<number>;
}

/** A request body larger than this is refused by the client (the server's BODY_LIMIT is far lower). */
const MAX_REQUEST_BODY = 128 * 1024 * 1024;
/** Response bytes handed to the WebSocket and not yet written, past which the local response is paused. */
const WIRE_HIGH_WATER = 1024 * 1024;
/** Statuses of the handshake that retrying will not change. */
const FATAL_STATUSES = new Set([400, 401, 403, 404, 426]);

interface Exchange {
  frame: RequestFrame;
  body: Buffer[];
  size: number;
  started: number;
  req?: http.ClientRequest;
  res?: http.IncomingMessage;
  serverPaused: boolean;
  wireBytes: number;
  done: boolean;
}

/** The WebSocket URL of an endpoint's tunnel on `server`. */
export function tunnelUrl(server: string, endpoint: string): string {
  const u = new URL(server);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/api/v2/endpoints/${encodeURIComponent(endpoint)}/tunnel`;
  u.search = '';
  return u.toString();
}

/** Starts the tunnel; it runs until stopped or refused. */
export function runTunnel(opts: TunnelOptions): TunnelHandle {
  const minDelay = opts.minDelayMs ?? 500;
  const maxDelay = opts.maxDelayMs ?? 30_000;
  const url = tunnelUrl(opts.server, opts.endpoint);
  const target = `http://${opts.targetHost.includes(':') ? `[${opts.targetHost}]` : opts.targetHost}:${opts.targetPort}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const exchanges = new Map<number, Exchange>();
  let ws: WebSocket | undefined;
  let attempt = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let watchdog: NodeJS.Timeout | undefined;
  let stopped = false;
  let finish!: (code: number) => void;
  const done = new Promise<number>((r) => (finish = r));

  const send = (frame: ClientFrame | Buffer, cb?: (err?: Error) => void): void => {
    if (ws?.readyState !== WebSocket.OPEN) return cb?.(new Error('not connected'));
    ws.send(Buffer.isBuffer(frame) ? frame : JSON.stringify(frame), cb);
  };

  const line = (x: Exchange, what: string): void =>
    opts.out(`${x.frame.method} ${x.frame.path} → ${what} (${Date.now() - x.started} ms)`);

  const abandonAll = (): void => {
    for (const x of exchanges.values()) {
      x.done = true;
      x.req?.destroy();
    }
    exchanges.clear();
  };

  const end = (code: number): void => {
    if (stopped) return;
    stopped = true;
    clearTimeout(retryTimer);
    clearTimeout(watchdog);
    abandonAll();
    agent.destroy();
    finish(code);
  };

  const fail = (x: Exchange, reason: FailureReason, message: string): void => {
    if (x.done) return;
    x.done = true;
    exchanges.delete(x.frame.id);
    send({ type: 'error', id: x.frame.id, reason, message });
    line(x, x.res ? `cut: ${message}` : reason === 'refused' ? `502 refused (${message})` : `502 ${message}`);
  };

  const resumeIfFree = (x: Exchange): void => {
    if (x.res && !x.serverPaused && x.wireBytes < WIRE_HIGH_WATER) x.res.resume();
  };

  /** Sends the request to the local service and its answer back through the tunnel. */
  const forward = (x: Exchange): void => {
    const { frame } = x;
    const body = Buffer.concat(x.body);
    x.body = [];
    // No prototype: a header name is data (`__proto__`, `constructor`).
    const headers = Object.assign(Object.create(null) as Record<string, string>, frame.headers);
    headers['host'] = `${opts.targetHost}:${opts.targetPort}`;
    const fwd = headers['x-forwarded-for'];
    if (frame.ip) headers['x-forwarded-for'] = fwd ? `${fwd}, ${frame.ip}` : frame.ip;
    if (frame.host) headers['x-forwarded-host'] = frame.host;
    headers['x-forwarded-proto'] = frame.protocol;
    if (body.length > 0 || !['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE'].includes(frame.method))
      headers['content-length'] = String(body.length);
    const req = http.request(`${target}${frame.path}`, { method: frame.method, headers, agent });
    x.req = req;
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED')
        fail(x, 'refused', `${err.code} ${opts.targetHost}:${opts.targetPort}`);
      else fail(x, 'failed', err.code ?? err.message);
    });
    req.on('response', (res) => {
      if (x.done) return void res.destroy();
      x.res = res;
      const pairs: [string, string][] = [];
      for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
        pairs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
      send({ type: 'response', id: frame.id, status: res.statusCode ?? 502, headers: pairs });
      res.on('data', (chunk: Buffer) => {
        if (x.done) return;
        for (let i = 0; i < chunk.length; i += BODY_CHUNK) {
          const part = chunk.subarray(i, i + BODY_CHUNK);
          x.wireBytes += part.length;
          send(bodyFrame(frame.id, part), () => {
            x.wireBytes -= part.length;
            resumeIfFree(x);
          });
        }
        if (x.wireBytes >= WIRE_HIGH_WATER) res.pause();
      });
      res.on('end', () => {
        if (x.done) return;
        x.done = true;
        exchanges.delete(frame.id);
        send({ type: 'end', id: frame.id });
        line(x, String(res.statusCode));
      });
      res.on('error', (err) => fail(x, 'failed', err.message));
      res.on('aborted', () => fail(x, 'failed', 'the local service closed the connection mid-answer'));
    });
    req.end(body);
  };

  const onFrame = (data: RawData, isBinary: boolean): void => {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
    if (isBinary) {
      const f = readBodyFrame(buf);
      const x = f && exchanges.get(f.id);
      if (!f || !x || x.req) return;
      x.size += f.chunk.length;
      if (x.size > MAX_REQUEST_BODY) return fail(x, 'failed', 'request body too large for the tunnel client');
      x.body.push(f.chunk);
      return;
    }
    const frame = parseServerFrame(buf.toString('utf8'));
    if (typeof frame === 'string') {
      opts.err(`tunnel: ignoring a frame from the server: ${frame}`);
      return;
    }
    switch (frame.type) {
      case 'hello':
        attempt = 0;
        armWatchdog(frame.pingInterval);
        opts.out(
          `Tunnel connected: requests to endpoint "${frame.endpoint}" that no rule answers go to ${target}`,
        );
        if (!frame.localTunnel)
          opts.err(
            `Note: the endpoint's localTunnel setting is off, so no request comes through yet; turn it on with ` +
              `PATCH /api/v2/endpoints/${frame.endpoint}/settings {"localTunnel": true} or in the dashboard.`,
          );
        watchdogInterval = frame.pingInterval;
        return;
      case 'request':
        exchanges.set(frame.id, {
          frame,
          body: [],
          size: 0,
          started: Date.now(),
          serverPaused: false,
          wireBytes: 0,
          done: false,
        });
        return;
      case 'end': {
        const x = exchanges.get(frame.id);
        if (x && !x.req) forward(x);
        return;
      }
      case 'cancel': {
        const x = exchanges.get(frame.id);
        if (!x) return;
        x.done = true;
        exchanges.delete(frame.id);
        x.req?.destroy();
        line(
          x,
          x.res ? 'cut: the server no longer wants the answer' : 'given up by the server (no answer in time)',
        );
        return;
      }
      case 'pause':
      case 'resume': {
        const x = exchanges.get(frame.id);
        if (!x) return;
        x.serverPaused = frame.type === 'pause';
        if (x.serverPaused) x.res?.pause();
        else resumeIfFree(x);
        return;
      }
    }
  };

  let watchdogInterval = 15_000;
  /** No ping from the server for two intervals: the connection is taken as dead and made again. */
  function armWatchdog(interval = watchdogInterval): void {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => ws?.terminate(), 2 * interval + 1000);
  }

  const retry = (why: string): void => {
    if (stopped) return;
    const base = Math.min(maxDelay, minDelay * 2 ** Math.min(attempt, 20));
    const delay = Math.round(base / 2 + Math.random() * (base / 2));
    attempt++;
    opts.err(`tunnel: ${why}; reconnecting in ${(delay / 1000).toFixed(1)} s`);
    retryTimer = setTimeout(connect, delay);
  };

  function connect(): void {
    if (stopped) return;
    let refused: string | undefined;
    let lastError: string | undefined;
    const socket = new WebSocket(url, {
      headers: { authorization: `Bearer ${opts.apiKey}` },
      maxPayload: MAX_FRAME + 4,
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
    });
    ws = socket;
    socket.on('unexpected-response', (req, res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text = (text + c).slice(0, 2000)));
      res.on('end', () => {
        let message = text.trim();
        try {
          message = (JSON.parse(text) as { error: { message: string } }).error.message;
        } catch {
          /* not the JSON error body: shown as it is */
        }
        const status = res.statusCode ?? 0;
        if (FATAL_STATUSES.has(status)) refused = `${status} ${message}`;
        else lastError = `the server answered ${status} ${message}`;
        req.destroy();
        socket.terminate();
      });
      res.on('error', () => socket.terminate());
    });
    socket.on('error', (err: NodeJS.ErrnoException) => (lastError = err.code ?? err.message));
    socket.on('ping', () => armWatchdog());
    socket.on('message', onFrame);
    socket.on('close', (code: number, reason: Buffer) => {
      clearTimeout(watchdog);
      abandonAll();
      if (stopped) return;
      if (refused !== undefined) {
        opts.err(`tunnel refused by ${opts.server}: ${refused}`);
        end(1);
        return;
      }
      const why =
        lastError !== undefined
          ? `cannot reach ${opts.server} (${lastError})`
          : `disconnected (${code}${reason.length > 0 ? ` ${reason.toString()}` : ''})`;
      retry(why);
    });
  }

  connect();
  return {
    done,
    async stop() {
      if (!stopped) {
        const socket = ws;
        end(0);
        if (socket && socket.readyState !== WebSocket.CLOSED) {
          await new Promise<void>((resolve) => {
            socket.once('close', () => resolve());
            if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
            else socket.close(1000, 'client stopping');
            setTimeout(() => {
              socket.terminate();
              resolve();
            }, 1000).unref();
          });
        }
      }
      return done;
    },
  };
}
