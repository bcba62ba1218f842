/**
 * The body limit (SPEC §2): 1,048,576 bytes counted on the wire, chunked bodies too. Over it: 413 with
 * the JSON error body, code `payload_too_large`; a declared Content-Length over it is refused before
 * the body arrives; the server keeps serving. Real sockets only: inject() never frames a body.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { rawRequest, type RawResponse } from '../helpers/raw.js';
import { assertServes, chunked, rawEcho, rawHttp, rawUntilClose } from './echo-helpers.js';

const MiB = 1_048_576;

function assert413(res: RawResponse, limit: number): void {
  assert.equal(res.status, 413, res.raw.slice(0, 300));
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(res.headers['access-control-allow-origin'], '*');
  const body = JSON.parse(res.body);
  assert.equal(body.error.code, 'payload_too_large');
  assert.match(body.error.message, new RegExp(String(limit)));
}

/** `n` bytes split into chunks of `size`. */
function pieces(n: number, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let left = n; left > 0; left -= size) out.push(Buffer.alloc(Math.min(size, left), 'a'));
  return out;
}

void describe('body limit: the default 1 MiB', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({}, { listen: true });
  });
  after(async () => {
    await app.stop();
  });

  void it('is 1,048,576 bytes', () => {
    assert.equal(app.ctx.config.bodyLimit, MiB);
  });

  void it('accepts a body of exactly 1,048,576 bytes', async () => {
    const { doc } = await rawEcho(
      app.port,
      rawHttp('POST', '/e/echo/big', [['Content-Type', 'text/plain']], Buffer.alloc(MiB, 'x')),
    );
    assert.equal(doc.rawBody.length, MiB);
  });

  void it('refuses 1,048,577 bytes with 413 and keeps serving', async () => {
    const res = await rawRequest(
      app.port,
      rawHttp('POST', '/e/echo/big', [['Content-Type', 'text/plain']], Buffer.alloc(MiB + 1, 'x')),
    );
    assert413(res, MiB);
    await assertServes(app.port);
  });

  void it('refuses a declared Content-Length over the limit without waiting for the body', async () => {
    const started = Date.now();
    const res = await rawRequest(
      app.port,
      rawHttp('POST', '/e/echo/big', [
        ['Content-Type', 'application/json'],
        ['Content-Length', String(50 * MiB)],
      ]),
      3000,
    );
    assert413(res, MiB);
    assert.ok(Date.now() - started < 3000);
    await assertServes(app.port);
  });

  void it('accepts a chunked body of exactly 1,048,576 bytes', async () => {
    const { doc } = await rawEcho(
      app.port,
      rawHttp(
        'POST',
        '/e/echo/chunked',
        [
          ['Content-Type', 'text/plain'],
          ['Transfer-Encoding', 'chunked'],
        ],
        chunked(pieces(MiB, 65536)),
      ),
    );
    assert.equal(doc.rawBody.length, MiB);
  });

  void it('refuses a chunked body going over the limit with 413 and keeps serving', async () => {
    const res = await rawRequest(
      app.port,
      rawHttp(
        'POST',
        '/e/echo/chunked',
        [
          ['Content-Type', 'text/plain'],
          ['Transfer-Encoding', 'chunked'],
        ],
        chunked(pieces(MiB + 1, 65536)),
      ),
    );
    assert413(res, MiB);
    await assertServes(app.port);
  });

  void it('refuses a chunked body that never ends once it is over the limit', async () => {
    // Chunks keep coming and no last chunk is sent: the 413 must not wait for the end.
    const head = rawHttp('POST', '/e/echo/endless', [['Transfer-Encoding', 'chunked']]);
    const res = await rawRequest(app.port, [head, chunked(pieces(2 * MiB, 65536)).subarray(0, -5)], 5000);
    assert413(res, MiB);
    await assertServes(app.port);
  });
});

void describe('body limit: a configured limit (limit − 1, limit, limit + 1)', () => {
  const LIMIT = 1000;
  let app: TestApp;
  before(async () => {
    app = await startApp({ bodyLimit: LIMIT }, { listen: true });
  });
  after(async () => {
    await app.stop();
  });

  for (const n of [LIMIT - 1, LIMIT]) {
    void it(`accepts ${n} bytes with Content-Length`, async () => {
      const { doc } = await rawEcho(
        app.port,
        rawHttp('PUT', '/e/echo/n', [['Content-Type', 'text/plain']], 'b'.repeat(n)),
      );
      assert.equal(doc.rawBody.length, n);
    });

    void it(`accepts ${n} bytes chunked`, async () => {
      const { doc } = await rawEcho(
        app.port,
        rawHttp('PUT', '/e/echo/n', [['Transfer-Encoding', 'chunked']], chunked(pieces(n, 300))),
      );
      assert.equal(doc.rawBody.length, n);
    });
  }

  void it(`refuses ${LIMIT + 1} bytes with Content-Length`, async () => {
    const res = await rawRequest(
      app.port,
      rawHttp('PUT', '/e/echo/n', [['Content-Type', 'text/plain']], 'b'.repeat(LIMIT + 1)),
    );
    assert413(res, LIMIT);
    await assertServes(app.port);
  });

  void it(`refuses ${LIMIT + 1} bytes chunked`, async () => {
    const res = await rawRequest(
      app.port,
      rawHttp('PUT', '/e/echo/n', [['Transfer-Encoding', 'chunked']], chunked(pieces(LIMIT + 1, 300))),
    );
    assert413(res, LIMIT);
    await assertServes(app.port);
  });

  void it('counts bytes, not characters', async () => {
    // 500 two-byte characters: 1000 bytes pass; one more character is 1002 bytes.
    const ok = await rawEcho(
      app.port,
      rawHttp('POST', '/e/echo/u', [['Content-Type', 'text/plain; charset=utf-8']], 'é'.repeat(500)),
    );
    assert.equal(ok.doc.rawBody, 'é'.repeat(500));
    const res = await rawRequest(
      app.port,
      rawHttp('POST', '/e/echo/u', [['Content-Type', 'text/plain']], 'é'.repeat(501)),
    );
    assert413(res, LIMIT);
  });

  void it('refuses a declared Content-Length of limit + 1 before the body is sent', async () => {
    const res = await rawRequest(
      app.port,
      rawHttp('POST', '/e/echo/n', [['Content-Length', String(LIMIT + 1)]]),
      3000,
    );
    assert413(res, LIMIT);
    await assertServes(app.port);
  });

  void it('does not record a refused body in the history', async () => {
    await app.ctx.history.flush();
    const before = (await app.ctx.store.listHistory('echo', { path: { substring: '/refused-413' } }, 10)).data
      .length;
    await rawRequest(app.port, rawHttp('POST', '/e/echo/refused-413', [], 'z'.repeat(LIMIT + 1)));
    await app.ctx.history.flush();
    const afterCount = (await app.ctx.store.listHistory('echo', { path: { substring: '/refused-413' } }, 10))
      .data.length;
    assert.equal(afterCount, before);
  });

  void it('gets the 413 to a client that reads only after writing its whole body', async () => {
    // Closing right after the answer would reset the connection under the client's writes (EPIPE)
    // and the unread 413 would be lost: the refused body is drained instead.
    const total = 4 * MiB;
    const received = await new Promise<string>((resolve) => {
      const sock = net.connect(app.port, '127.0.0.1');
      sock.pause();
      let got = '';
      let failure = '';
      sock.on('data', (c: Buffer) => (got += c.toString('latin1')));
      sock.on('error', (e) => (failure = e.message));
      sock.on('close', () => resolve(failure ? `error: ${failure}; ${got}` : got));
      sock.write(rawHttp('POST', '/e/echo/upload', [['Content-Length', String(total)]]));
      let sent = 0;
      const pump = (): void => {
        if (sock.destroyed) return;
        if (sent >= total) {
          sock.resume();
          sock.end();
          return;
        }
        sent += 65536;
        sock.write(Buffer.alloc(65536, 'a'), () => setTimeout(pump, 1));
      };
      setTimeout(pump, 50);
    });
    assert.match(received, /^HTTP\/1\.1 413 /);
    assert.match(received, /"code":"payload_too_large"/);
  });

  void it('serves the next request on the same connection once the refused body is over', async () => {
    const text = await rawUntilClose(app.port, [
      rawHttp('POST', '/e/echo/first', [['Content-Length', String(LIMIT * 3)]]),
      Buffer.alloc(LIMIT * 3, 'a'),
      rawHttp('GET', '/e/echo/second', [['Connection', 'close']]),
    ]);
    assert.match(text, /^HTTP\/1\.1 413 /);
    const second = text.slice(text.indexOf('HTTP/1.1', 10));
    assert.match(second, /^HTTP\/1\.1 200 OK/);
    assert.match(second, /"path":"\/second"/);
  });

  void it('survives a client that disconnects in the middle of a body', async () => {
    await new Promise<void>((resolve, reject) => {
      const sock = net.connect(app.port, '127.0.0.1', () => {
        sock.write(rawHttp('POST', '/e/echo/cut', [['Content-Length', '500']]));
        sock.write('only part of it');
        setTimeout(() => {
          sock.destroy();
          resolve();
        }, 50);
      });
      sock.on('error', reject);
    });
    await assertServes(app.port);
  });
});
