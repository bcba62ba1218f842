/**
 * The local tunnel end to end (SPEC §7): the real `mockingbird serve` and `mockingbird tunnel`
 * processes, a local target on 127.0.0.1 port 0. A GET and a 1 MB POST go through unchanged, a
 * streamed answer arrives while the target is still writing, a slow target is 504 (TUNNEL_TIMEOUT
 * shortened), a refused port is 502 with the hosted service's text, a rule beats a live tunnel, and the
 * tunnel falls through to the default response when localTunnel is off or no client is connected.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_KEY } from '../helpers/app.js';
import { serveCli, type Served } from '../helpers/cli.js';
import { until } from '../helpers/until.js';
import {
  api,
  closedPort,
  startTarget,
  startTunnelCli,
  tunnelEndpoint,
  type Target,
  type TunnelCli,
} from './tunnel-helpers.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('mockingbird tunnel against a local service', () => {
  let dir: string;
  let server: Served;
  let target: Target;
  let tunnel: TunnelCli;
  let releaseStream: () => void = () => {};
  const url = (path: string): string => `http://127.0.0.1:${server.port}/e/tunnelled${path}`;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mb-tunnel-'));
    server = await serveCli({ DATA_DIR: dir, MOCKINGBIRD_API_KEY: ADMIN_KEY, TUNNEL_TIMEOUT: '1000' });
    target = await startTarget((req, res, body) => {
      if (req.url === '/slow') return; // never answers
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('first part;');
        releaseStream = () => res.end('second part');
        return;
      }
      if (req.method === 'POST') {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ length: body.length, sha: sha(body) }));
        return;
      }
      res.writeHead(200, [
        ['Content-Type', 'application/json'],
        ['Set-Cookie', 'a=1'],
        ['Set-Cookie', 'b=2'],
        ['X-Local', 'yes'],
      ]);
      res.end(JSON.stringify({ method: req.method, url: req.url }));
    });
    await tunnelEndpoint(server.port, 'tunnelled');
    tunnel = startTunnelCli(server.port, 'tunnelled', target.port);
    await tunnel.connected();
  });

  after(async () => {
    releaseStream();
    tunnel?.child.kill('SIGKILL');
    server?.child.kill('SIGKILL');
    await target?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a GET goes to the local service and its answer comes back, repeated headers kept', async () => {
    const res = await fetch(url('/users?id=1'), { headers: { 'x-custom': 'v' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-local'), 'yes');
    assert.deepEqual(res.headers.getSetCookie(), ['a=1', 'b=2']);
    assert.deepEqual(await res.json(), { method: 'GET', url: '/users?id=1' });
    const seen = target.seen.at(-1)!;
    assert.equal(seen.headers['x-custom'], 'v');
    assert.equal(seen.headers['host'], `127.0.0.1:${target.port}`);
    assert.equal(seen.headers['x-forwarded-for'], '127.0.0.1');
    assert.equal(seen.headers['x-forwarded-host'], `127.0.0.1:${server.port}`);
    // One line per request on the client's stdout.
    await until(() => /GET \/users\?id=1 → 200 \(\d+ ms\)/.test(tunnel.stdout()), 2000, tunnel.stdout());
    // Recorded as behavior `tunnel`.
    const list = (await api(server.port, 'GET', '/endpoints/tunnelled/requests?mode=verbose')) as {
      data: { path: string; behavior: string; status: number; response: { body: string } }[];
    };
    const entry = list.data.find((e) => e.path === '/users?id=1');
    assert.equal(entry?.behavior, 'tunnel');
    assert.equal(entry?.status, 200);
    assert.match(entry?.response.body ?? '', /"url":"\/users\?id=1"/);
  });

  it('a POST with a 1 MB body reaches the local service byte for byte', async () => {
    const body = Buffer.alloc(1024 * 1024 - 10);
    for (let i = 0; i < body.length; i++) body[i] = (i * 7) % 251;
    const res = await fetch(url('/upload'), {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(res.status, 201);
    assert.deepEqual(await res.json(), { length: body.length, sha: sha(body) });
    assert.equal(target.seen.at(-1)!.headers['content-type'], 'application/octet-stream');
  });

  it('a streamed answer arrives while the local service is still writing it', async () => {
    const res = await fetch(url('/stream'));
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    assert.equal(Buffer.from(first.value).toString(), 'first part;');
    releaseStream();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read())
      rest += Buffer.from(r.value).toString();
    assert.equal(rest, 'second part');
  });

  it('a local service that does not answer in TUNNEL_TIMEOUT is 504', async () => {
    const started = Date.now();
    const res = await fetch(url('/slow'));
    assert.equal(res.status, 504);
    assert.match(await res.text(), /did not answer within 1 s/);
    assert.ok(Date.now() - started < 3000);
    await until(() => /GET \/slow → given up by the server/.test(tunnel.stdout()), 2000, tunnel.stdout());
  });

  it('a rule beats a live tunnel', async () => {
    await api(server.port, 'POST', '/endpoints/tunnelled/rules', {
      method: 'GET',
      conditions: [{ type: 'path', operator: 'equals', value: '/ruled' }],
      action: { type: 'mock', status: 418, body: 'from the rule' },
    });
    const res = await fetch(url('/ruled'));
    assert.equal(res.status, 418);
    assert.equal(await res.text(), 'from the rule');
    assert.ok(!target.seen.some((s) => s.url === '/ruled'));
  });

  it('with localTunnel off the request falls through to the default response', async () => {
    await api(server.port, 'PATCH', '/endpoints/tunnelled/settings', { localTunnel: false });
    try {
      const res = await fetch(url('/off'));
      assert.equal(res.status, 200);
      assert.match(await res.text(), /has nothing configured for GET \/off/);
      assert.ok(!target.seen.some((s) => s.url === '/off'));
    } finally {
      await api(server.port, 'PATCH', '/endpoints/tunnelled/settings', { localTunnel: true });
    }
  });

  it('with no client connected the request falls through to the default response', async () => {
    await tunnelEndpoint(server.port, 'lonely');
    const res = await fetch(`http://127.0.0.1:${server.port}/e/lonely/x`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /has nothing configured for GET \/x/);
  });

  it('a key the server refuses ends the client with exit code 1 and the reason', async () => {
    const bad = startTunnelCli(server.port, 'tunnelled', target.port, 'mb_not_a_key_0123456789abcdefghijkl');
    assert.equal(await bad.exited, 1);
    assert.match(bad.stderr(), /tunnel refused by .*: 401 The API key is not valid\./);
  });

  it('a refused local port is 502 "Failed to connect to host (refused)"', async () => {
    await tunnelEndpoint(server.port, 'refusing');
    const refusing = startTunnelCli(server.port, 'refusing', await closedPort());
    try {
      await refusing.connected();
      const res = await fetch(`http://127.0.0.1:${server.port}/e/refusing/x`);
      assert.equal(res.status, 502);
      assert.equal((await res.text()).trim(), 'Failed to connect to host (refused)');
      await until(() => /GET \/x → 502 refused/.test(refusing.stdout()), 2000, refusing.stdout());
    } finally {
      refusing.child.kill('SIGTERM');
      assert.equal(await refusing.exited, 0, 'SIGTERM ends the client cleanly');
    }
  });
});
