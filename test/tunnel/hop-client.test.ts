/**
 * The sending side of a hop against a stand-in owner (a plain HTTP server on port 0): each outcome the
 * tunnel step acts on, an answer streamed through with its repeated headers, and a refusal, an owner
 * without a client, an unreachable owner, a broken head and a silent owner each told apart.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HopClient, type HopResult } from '../../src/tunnel/hop-client.js';
import { HOP_KEY_HEADER, headFrame, readHead } from '../../src/tunnel/index.js';
import { closedPort } from './tunnel-helpers.js';

const HEAD = {
  method: 'POST',
  path: '/x?y=1',
  headers: { 'x-a': '1' },
  ip: '203.0.113.1',
  protocol: 'http' as const,
  host: 'h',
};

describe('HopClient', () => {
  let server: http.Server;
  let base: string;
  const seen: { key: string | undefined; head: Record<string, unknown>; body: string }[] = [];
  const client = new HopClient({ timeoutMs: 50, hopKey: 'k' });

  before(async () => {
    server = http.createServer((req, res) => {
      void (async () => {
        const head = await readHead(req);
        const parts: Buffer[] = [];
        for await (const c of req) parts.push(c as Buffer);
        seen.push({
          key: req.headers[HOP_KEY_HEADER] as string | undefined,
          head,
          body: Buffer.concat(parts).toString(),
        });
        const ep = req.url!.split('/').at(-1);
        if (ep === 'refuse') return void res.writeHead(404).end();
        if (ep === 'error') return void res.writeHead(500).end();
        if (ep === 'silent') return; // never answers
        res.writeHead(200);
        if (ep === 'none') return void res.end(headFrame({ none: true }));
        if (ep === 'broken') return void res.end(headFrame({ status: 'two hundred' }));
        res.write(
          headFrame({
            status: 207,
            headers: [
              ['set-cookie', 'a=1'],
              ['set-cookie', 'b=2'],
              ['x-b', '2'],
            ],
          }),
        );
        res.write('streamed ');
        res.end('answer');
      })();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    client.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const send = (ep: string, url = base): Promise<HopResult> =>
    client.send(url, ep, HEAD, Buffer.from('the body'));

  it("sends the key, the request's head and body; streams the owner's answer back", async () => {
    const r = await send('shop');
    assert.equal(r.kind, 'answer');
    if (r.kind !== 'answer') return;
    assert.equal(r.answer.status, 207);
    assert.deepEqual(r.answer.headers['set-cookie'], ['a=1', 'b=2']);
    assert.equal(r.answer.headers['x-b'], '2');
    const parts: Buffer[] = [];
    for await (const c of r.answer.stream!) parts.push(c as Buffer);
    assert.equal(Buffer.concat(parts).toString(), 'streamed answer');
    const s = seen.at(-1)!;
    assert.deepEqual(s, { key: 'k', head: HEAD, body: 'the body' });
  });

  it('tells a refused key, an owner without a client and an unreachable owner apart', async () => {
    assert.equal((await send('refuse')).kind, 'refused');
    assert.equal((await send('none')).kind, 'none');
    assert.equal((await send('error')).kind, 'unreachable');
    assert.equal((await send('broken')).kind, 'unreachable');
    assert.equal((await send('shop', `http://127.0.0.1:${await closedPort()}`)).kind, 'unreachable');
  });

  it('answers 504 as the tunnel does when the owner sends no head in time', async () => {
    const r = await send('silent');
    assert.equal(r.kind, 'answer');
    if (r.kind === 'answer') {
      assert.equal(r.answer.status, 504);
      assert.match(String(r.answer.body), /did not answer within/);
    }
  });
});
