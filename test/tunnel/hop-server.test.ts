/**
 * The receiving side of a hop with a real hub and a real tunnel client: a hop whose request line,
 * headers and body arrive in one read is parsed whole before the hub listens to its body, and must
 * still reach the local service (it hung until the tunnel's 504: with h2c on the cleartext port the
 * sniffed first bytes reach Node's parser in one piece, test/cluster/tunnels.test.ts 'the owner
 * killed'). Also through HopClient, on a server that sniffs for h2c as the instances do.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { MemoryEventBus } from '../../src/events/index.js';
import { acceptH2c } from '../../src/grpc/index.js';
import { HopClient } from '../../src/tunnel/hop-client.js';
import { hopServer } from '../../src/tunnel/hop-server.js';
import {
  HOP_KEY_HEADER,
  HOP_PREFIX,
  headFrame,
  hopKeys,
  runTunnel,
  TunnelHub,
  type TunnelHandle,
} from '../../src/tunnel/index.js';
import { until } from '../helpers/until.js';
import { startTarget, type Target } from './tunnel-helpers.js';

const EP = 'hopped';
/** The hub's TUNNEL_TIMEOUT here: a hop that hangs is answered 504 after it. */
const TIMEOUT_MS = 3000;
const keys = hopKeys('the instances’ secret');

interface Served {
  server: http.Server;
  base: string;
}

/** A server as an instance is for hops: hopServer on requests, the hub on upgrades; h2c when asked. */
async function serve(hub: TunnelHub, h2c: boolean): Promise<Served> {
  const log = pino({ level: 'silent' });
  const handle = hopServer({ hub, keys, accepting: () => true, refused: () => undefined, log });
  const server = http.createServer(handle);
  server.on('upgrade', (req, socket, head) =>
    hub.accept(req, socket, head, { endpoint: EP, ip: '127.0.0.1', localTunnel: true }),
  );
  if (h2c) acceptH2c(server, (stream) => stream.close());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Sends `bytes` in one write and reads until the server closes; the raw answer. */
function rawExchange(port: number, bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => parts.push(d));
    socket.on('end', () => resolve(Buffer.concat(parts)));
    socket.on('error', reject);
  });
}

/** A hop request (its head frame and `body`) as one buffer. */
function hopBytes(method: string, path: string, body: string): Buffer {
  const payload = Buffer.concat([
    headFrame({ method, path, headers: {}, ip: '203.0.113.9', protocol: 'http', host: 'h' }),
    Buffer.from(body),
  ]);
  const head =
    `POST ${HOP_PREFIX}${EP} HTTP/1.1\r\nhost: x\r\n${HOP_KEY_HEADER}: ${keys.hop}\r\n` +
    `content-type: application/octet-stream\r\ncontent-length: ${payload.length}\r\nconnection: close\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
}

/** The hop answer's head (after its 4-byte length) and what follows, from a raw chunked HTTP answer. */
function hopAnswer(raw: Buffer): { status: number; head: Record<string, unknown>; rest: string } {
  const text = raw.toString('latin1');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
  const body = Buffer.from(
    text
      .slice(text.indexOf('\r\n\r\n') + 4)
      .split('\r\n')
      .filter((_, i) => i % 2 === 1)
      .join(''),
    'latin1',
  );
  const len = body.readUInt32BE(0);
  return {
    status,
    head: JSON.parse(body.subarray(4, 4 + len).toString('utf8')) as Record<string, unknown>,
    rest: body.subarray(4 + len).toString('utf8'),
  };
}

for (const h2c of [false, true]) {
  describe(`a hop to a tunnel client here (${h2c ? 'h2c sniffed' : 'plain HTTP/1.1'} port)`, () => {
    let hub: TunnelHub;
    let served: Served;
    let target: Target;
    let tunnel: TunnelHandle;

    before(async () => {
      hub = new TunnelHub({
        timeoutMs: TIMEOUT_MS,
        maxConcurrent: 8,
        maxClients: 4,
        pingIntervalMs: 60_000,
        events: new MemoryEventBus(),
        log: pino({ level: 'silent' }),
      });
      served = await serve(hub, h2c);
      target = await startTarget((req, res, body) => {
        res.writeHead(201, { 'content-type': 'text/plain' });
        res.end(`local saw ${req.method} ${req.url} ${body.toString()}`);
      });
      tunnel = runTunnel({
        server: served.base,
        endpoint: EP,
        apiKey: 'unused here',
        targetHost: '127.0.0.1',
        targetPort: target.port,
        out: () => undefined,
        err: () => undefined,
      });
      await until(() => hub.clients(EP) === 1, 5000, 'the tunnel client did not connect');
    });
    after(async () => {
      await tunnel.stop();
      await hub.close(1000);
      served.server.closeAllConnections();
      await new Promise((r) => served.server.close(r));
      await target.close();
    });

    const port = (): number => (served.server.address() as AddressInfo).port;

    it('a hop with no body, all in one write, reaches the local service before the timeout', async () => {
      const started = Date.now();
      const a = hopAnswer(await rawExchange(port(), hopBytes('GET', '/k', '')));
      assert.equal(a.status, 200);
      assert.equal(a.head['status'], 201);
      assert.equal(a.rest, 'local saw GET /k ');
      assert.ok(Date.now() - started < TIMEOUT_MS, 'answered by the client, not by the timeout');
    });

    it('a hop with a body, all in one write, reaches the local service whole', async () => {
      const a = hopAnswer(await rawExchange(port(), hopBytes('PUT', '/p?q=1', 'the body')));
      assert.equal(a.head['status'], 201);
      assert.equal(a.rest, 'local saw PUT /p?q=1 the body');
    });

    it('HopClient: a GET with no body is answered by the client, as after an owner restarted', async () => {
      const client = new HopClient({ timeoutMs: TIMEOUT_MS, hopKey: keys.hop });
      try {
        for (let i = 0; i < 3; i++) {
          const started = Date.now();
          const r = await client.send(
            served.base,
            EP,
            { method: 'GET', path: `/k${i}`, headers: {}, ip: '', protocol: 'http', host: '' },
            Buffer.alloc(0),
          );
          assert.equal(r.kind, 'answer');
          if (r.kind !== 'answer') return;
          assert.equal(r.answer.status, 201);
          const parts: Buffer[] = [];
          for await (const c of r.answer.stream!) parts.push(c as Buffer);
          assert.equal(Buffer.concat(parts).toString(), `local saw GET /k${i} `);
          assert.ok(Date.now() - started < TIMEOUT_MS, 'answered by the client, not by the timeout');
        }
      } finally {
        client.close();
      }
    });
  });
}
