/**
 * Unit tests of the capture helpers (src/http/capture.ts): header collection with duplicates, the
 * query shape, and the client address with and without a trusted proxy.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { captureRequest, clientIp, collectHeaders, parseQuery } from '../../src/http/index.js';

function fakeReq(remoteAddress: string | undefined): IncomingMessage {
  return { socket: { remoteAddress } } as unknown as IncomingMessage;
}

void describe('collectHeaders', () => {
  void it('lower-cases names, keeps the last value and lists duplicates in order of first appearance', () => {
    const { headers, duplicates } = collectHeaders([
      'B',
      '1',
      'A',
      '1',
      'b',
      '2',
      'C',
      'x',
      'a',
      '2',
      'B',
      '3',
    ]);
    assert.deepEqual({ ...headers }, { b: '3', a: '2', c: 'x' });
    assert.deepEqual(duplicates, ['b', 'a']);
    assert.equal(Object.getPrototypeOf(headers), null);
  });

  void it('keeps __proto__ as a plain header', () => {
    const { headers } = collectHeaders(['__proto__', 'x']);
    assert.equal(Object.getOwnPropertyDescriptor(headers, '__proto__')?.value, 'x');
  });
});

void describe('parseQuery', () => {
  void it('gives an empty null-prototype object without query', () => {
    const q = parseQuery('/a');
    assert.deepEqual({ ...q }, {});
    assert.equal(Object.getPrototypeOf(q), null);
  });

  void it('maps a single key to a string and a repeated one to an array', () => {
    assert.deepEqual({ ...parseQuery('/a?x=1&y=2&y=3&z') }, { x: '1', y: ['2', '3'], z: '' });
  });
});

void describe('clientIp', () => {
  void it('drops the IPv4-mapped prefix of the socket address', () => {
    assert.equal(clientIp(fakeReq('::ffff:10.1.2.3'), {}, false), '10.1.2.3');
    assert.equal(clientIp(fakeReq('::1'), {}, false), '::1');
  });

  void it('ignores X-Forwarded-For unless the proxy is trusted', () => {
    const h = { 'x-forwarded-for': '203.0.113.1' };
    assert.equal(clientIp(fakeReq('127.0.0.1'), h, false), '127.0.0.1');
    assert.equal(clientIp(fakeReq('127.0.0.1'), h, true), '203.0.113.1');
  });

  void it('takes the first entry of the first header, without port', () => {
    assert.equal(
      clientIp(fakeReq('127.0.0.1'), { 'x-forwarded-for': ['198.51.100.1:80, 10.0.0.1', '1.1.1.1'] }, true),
      '198.51.100.1',
    );
    assert.equal(clientIp(fakeReq('127.0.0.1'), { 'x-forwarded-for': '[::1]:8080' }, true), '::1');
  });

  void it('falls back to the socket for entries that are no address', () => {
    for (const v of ['unknown', '', ' , 1.2.3.4', '1.2.3.4.5', '999.1.1.1'])
      assert.equal(clientIp(fakeReq('127.0.0.1'), { 'x-forwarded-for': v }, true), '127.0.0.1', v);
  });

  void it('gives an empty string when the socket is already gone', () => {
    assert.equal(clientIp(fakeReq(undefined), {}, false), '');
  });
});

void describe('captureRequest ids', () => {
  void it('are UUIDv7: time-ordered, so history entries sort by arrival in the id index', async () => {
    const req = {
      method: 'GET',
      rawHeaders: ['Host', 'x'],
      headers: { host: 'x' },
      socket: { remoteAddress: '127.0.0.1' },
    } as unknown as IncomingMessage;
    const ids: string[] = [];
    for (let i = 0; i < 50; i++)
      ids.push((await captureRequest(req, '/', Buffer.alloc(0), { trustProxy: false })).id);
    for (const id of ids)
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual([...ids].sort(), ids, 'each id sorts after the one before');
    assert.equal(new Set(ids).size, ids.length);
    const ms = parseInt(ids[0]!.replace(/-/g, '').slice(0, 12), 16);
    assert.ok(Math.abs(ms - Date.now()) < 5000, 'the id carries the arrival time');
  });
});
