/**
 * Unit tests of readBody and drainAndClose (src/http/body.ts) on a stand-in request stream: the limit
 * at limit − 1, limit and limit + 1 whatever the chunking, a declared length refused before any byte,
 * an aborted body, and the bounds of the drain after a refusal.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { drainAndClose, mayHaveBody, readBody } from '../../src/http/index.js';

interface FakeReq extends PassThrough {
  headers: Record<string, string>;
}

function fakeReq(headers: Record<string, string> = {}): FakeReq {
  // No auto-destroy, as for a real IncomingMessage: `destroyed` then means destroyed on purpose.
  const s = new PassThrough({ autoDestroy: false }) as FakeReq;
  s.headers = headers;
  return s;
}
const asReq = (r: FakeReq) => r as unknown as IncomingMessage;

/** Writes `n` bytes in chunks of `size`, then ends. */
function feed(r: FakeReq, n: number, size: number): void {
  for (let left = n; left > 0; left -= size) r.write(Buffer.alloc(Math.min(size, left), 'z'));
  r.end();
}

void describe('readBody', () => {
  const LIMIT = 100;
  for (const [n, size] of [
    [LIMIT - 1, 7],
    [LIMIT, 7],
    [LIMIT, LIMIT],
    [0, 1],
  ] as const) {
    void it(`reads ${n} bytes in chunks of ${size}`, async () => {
      const req = fakeReq();
      const p = readBody(asReq(req), LIMIT);
      feed(req, n, size);
      const r = await p;
      assert.equal(r.ok, true);
      if (r.ok) assert.equal(r.body.length, n);
    });
  }

  for (const size of [1, 7, LIMIT + 1]) {
    void it(`refuses ${LIMIT + 1} bytes arriving in chunks of ${size}`, async () => {
      const req = fakeReq();
      const p = readBody(asReq(req), LIMIT);
      feed(req, LIMIT + 1, size);
      assert.deepEqual(await p, { ok: false, reason: 'too_large' });
    });
  }

  void it('refuses a declared Content-Length over the limit before any byte arrives', async () => {
    const req = fakeReq({ 'content-length': String(LIMIT + 1) });
    assert.deepEqual(await readBody(asReq(req), LIMIT), { ok: false, reason: 'too_large' });
  });

  void it('accepts a declared Content-Length equal to the limit', async () => {
    const req = fakeReq({ 'content-length': String(LIMIT) });
    const p = readBody(asReq(req), LIMIT);
    feed(req, LIMIT, 50);
    assert.equal((await p).ok, true);
  });

  void it('counts what arrives, not what is declared', async () => {
    const req = fakeReq({ 'content-length': '10' });
    const p = readBody(asReq(req), LIMIT);
    feed(req, LIMIT + 1, 10);
    assert.deepEqual(await p, { ok: false, reason: 'too_large' });
  });

  void it('reports an aborted body', async () => {
    const req = fakeReq();
    const p = readBody(asReq(req), LIMIT);
    req.write('partial');
    req.destroy();
    assert.deepEqual(await p, { ok: false, reason: 'aborted' });
  });

  void it('reports a stream error as aborted', async () => {
    const req = fakeReq();
    const p = readBody(asReq(req), LIMIT);
    req.destroy(new Error('socket hang up'));
    assert.deepEqual(await p, { ok: false, reason: 'aborted' });
  });
});

void describe('drainAndClose', () => {
  void it('discards the rest of a body and leaves the connection open when it ends in time', async () => {
    const req = fakeReq();
    drainAndClose(asReq(req), 1000, 1000);
    feed(req, 900, 100);
    await new Promise((resolve) => req.on('end', resolve));
    assert.equal(req.destroyed, false);
  });

  void it('destroys the connection once more than maxBytes arrive', async () => {
    const req = fakeReq();
    drainAndClose(asReq(req), 1000, 1000);
    feed(req, 1001, 100);
    await new Promise((resolve) => req.on('close', resolve));
    assert.equal(req.destroyed, true);
    assert.equal(req.readableEnded, false);
  });

  void it('destroys the connection when the body is not over after maxMs', async () => {
    const req = fakeReq();
    drainAndClose(asReq(req), 1000, 30);
    req.write('still coming');
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal(req.destroyed, true);
  });

  void it('does nothing for a request already read to its end', async () => {
    const req = fakeReq();
    req.end();
    req.resume();
    await new Promise((resolve) => req.on('end', resolve));
    drainAndClose(asReq(req), 1000, 10);
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(req.destroyed, false);
  });
});

void describe('mayHaveBody', () => {
  it('follows HTTP/1.1 framing: a length above 0 or a transfer coding', () => {
    const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
    assert.equal(mayHaveBody(req({})), false);
    assert.equal(mayHaveBody(req({ 'content-length': '0' })), false);
    assert.equal(mayHaveBody(req({ 'content-length': '1' })), true);
    assert.equal(mayHaveBody(req({ 'transfer-encoding': 'chunked' })), true);
  });
});
