/** `Expect: 100-continue`: a body under the limit is invited with 100 Continue; one over it is refused at once. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startApp } from '../helpers/app.js';

/** Sends the head only and collects what the server says before any body is sent. */
function headOnly(port: number, head: string, waitMs = 1500): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let data = '';
    sock.on('data', (c) => (data += c.toString('latin1')));
    sock.on('error', reject);
    sock.write(head);
    setTimeout(() => {
      sock.destroy();
      resolve(data);
    }, waitMs);
  });
}

test('a declared body over the limit gets 413 without 100 Continue', async () => {
  const app = await startApp({}, { listen: true });
  try {
    const over = await headOnly(
      app.port,
      'POST /e/echo/x HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: 1048577\r\nExpect: 100-continue\r\n\r\n',
    );
    assert.match(over, /^HTTP\/1\.1 413 /);
    assert.doesNotMatch(over, /100 Continue/);
    assert.match(over, /"code":"payload_too_large"/);
  } finally {
    await app.stop();
  }
});

test('a declared body at the limit is invited, then echoed', async () => {
  const app = await startApp({ bodyLimit: 2048 }, { listen: true });
  try {
    const res = await new Promise<string>((resolve, reject) => {
      const sock = net.connect(app.port, '127.0.0.1');
      let data = '';
      let sent = false;
      sock.on('data', (c) => {
        data += c.toString('latin1');
        if (!sent && data.includes('100 Continue')) {
          sent = true;
          sock.write('a'.repeat(2048));
        }
        if (/\r\n\r\n[\s\S]*"method":"POST"[\s\S]*\}$/.test(data)) {
          sock.destroy();
          resolve(data);
        }
      });
      sock.on('error', reject);
      sock.write(
        'POST /e/echo/x HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: 2048\r\nExpect: 100-continue\r\n\r\n',
      );
      setTimeout(() => reject(new Error('no answer: ' + data)), 5000);
    });
    assert.match(res, /^HTTP\/1\.1 100 Continue/);
    assert.match(res, /HTTP\/1\.1 200 OK/);
    assert.match(res, /"rawBody":"a{2048}"/);
  } finally {
    await app.stop();
  }
});
