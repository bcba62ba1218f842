/**
 * Stops: an "unhandled error" log line with a stack for every proxied answer cut by its upstream
 * (issue 30, item 4): an upstream that closes mid-body now gives one warn line without a stack, the
 * client's connection is cut cleanly (no hang, no second answer), the history keeps what went
 * through with a problem saying so, and the server goes on serving (a probe from 127.0.0.2).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { TestApp } from '../helpers/app.js';
import { historyOf, proxyApp, send, upstream } from './proxy-helpers.js';

interface Line {
  level: 'warn' | 'error';
  obj: unknown;
  msg: unknown;
}

/** Records the warn and error lines of the app's logger (they still go where they went). */
function watchLog(app: TestApp): Line[] {
  const lines: Line[] = [];
  const log = app.ctx.log as unknown as Record<'warn' | 'error', (...args: unknown[]) => void>;
  for (const level of ['warn', 'error'] as const) {
    const original = log[level].bind(log);
    log[level] = (obj: unknown, msg?: unknown, ...rest: unknown[]) => {
      lines.push({ level, obj, msg });
      original(obj, msg, ...rest);
    };
  }
  return lines;
}

/** A raw GET; resolves with what arrived once the server closes the connection (or rejects after `ms`). */
function rawGet(port: number, path: string, ms = 5000): Promise<{ bytes: string; closed: 'end' | 'error' }> {
  return new Promise((resolve, reject) => {
    let bytes = '';
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`),
    );
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was not closed within ${ms} ms; got ${bytes.length} bytes`));
    }, ms);
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (bytes += d));
    socket.on('error', () => undefined);
    socket.on('close', (hadError) => {
      clearTimeout(timer);
      resolve({ bytes, closed: hadError ? 'error' : 'end' });
    });
  });
}

test('an upstream that closes mid-body: one warn line without a stack, the client cut, the rest served', async () => {
  const up = await upstream((req, res) => {
    if (req.url === '/fine') return res.end('fine');
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100000' });
    res.write('x'.repeat(1000));
    setTimeout(() => res.destroy(), 50);
  });
  const app = await proxyApp(up.url);
  const lines = watchLog(app);
  try {
    const cut = await rawGet(app.port, '/e/shop/cut');
    assert.match(cut.bytes, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(cut.bytes, /content-length: 100000\r\n/i);
    const body = cut.bytes.slice(cut.bytes.indexOf('\r\n\r\n') + 4);
    assert.equal(body, 'x'.repeat(1000), 'what the upstream sent, and no second answer after it');

    // Let the pipeline's and Fastify's callbacks run.
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(
      lines.filter((l) => l.level === 'error'),
      [],
      'no error line (the "unhandled error" with a stack)',
    );
    const warns = lines.filter((l) => l.level === 'warn');
    assert.equal(warns.length, 1, JSON.stringify(warns));
    assert.equal(warns[0]!.msg, 'streamed answer cut');
    const fields = warns[0]!.obj as Record<string, unknown>;
    assert.equal(fields['url'], '/e/shop/cut');
    assert.equal(fields['bytes'], 1000);
    assert.ok(!JSON.stringify(fields).includes('stack'), JSON.stringify(fields));
    assert.ok(!('err' in fields), 'no error object (pino would print its stack)');

    const [entry] = await historyOf(app);
    assert.equal(entry?.behavior, 'proxy');
    assert.equal(entry?.responseBody, 'x'.repeat(1000));
    assert.match(entry?.problems.join(' ') ?? '', /cut after 1000 bytes/);

    // Another client, from another address, is served meanwhile and after.
    const probe = await new Promise<string>((resolve, reject) => {
      const s = net.connect({ port: app.port, host: '127.0.0.1', localAddress: '127.0.0.2' }, () =>
        s.write('GET /e/shop/fine HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      );
      let got = '';
      s.setEncoding('latin1');
      s.on('data', (d: string) => (got += d));
      s.on('end', () => resolve(got));
      s.on('error', reject);
    });
    assert.match(probe, /^HTTP\/1\.1 200 OK[\s\S]*\r\n\r\nfine$/);
    assert.equal((await send(`${app.endpointUrl}/fine`)).text, 'fine');
  } finally {
    await app.stop();
    await up.close();
  }
});
