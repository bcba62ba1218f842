/** The request log line is written straight to pino's stream: it must read exactly like pino's own. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { jsonString, requestLineWriter } from '../../src/logger.js';

function capture(opts: pino.LoggerOptions = {}): { log: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const log = pino({ ...opts, timestamp: () => ',"time":1234' }, { write: (s: string) => lines.push(s) });
  return { log, lines };
}

test('the request line is byte for byte the line pino writes for the same fields', () => {
  const { log, lines } = capture({ redact: ['req.headers.authorization'] });
  const fields = { method: 'GET', host: 'h"ost:1', url: '/e/x?q=\u2028\n"', status: 200, ms: 0.12 };
  log.info(fields, 'request');
  requestLineWriter(log)(fields.method, fields.host, fields.url, fields.status, fields.ms);
  assert.equal(lines.length, 2);
  assert.equal(lines[1], lines[0]);
  // A missing Host is left out, as pino leaves out an undefined field.
  log.info({ method: 'GET', host: undefined, url: '/', status: 404, ms: 1 }, 'request');
  requestLineWriter(log)('GET', undefined, '/', 404, 1);
  assert.equal(lines[3], lines[2]);
  assert.deepEqual(JSON.parse(lines[3]!), {
    level: 30,
    time: 1234,
    pid: process.pid,
    hostname: JSON.parse(lines[0]!).hostname,
    method: 'GET',
    url: '/',
    status: 404,
    ms: 1,
    msg: 'request',
  });
});

test('the request line follows the level, and a child logger keeps its bindings', () => {
  const { log, lines } = capture();
  const child = log.child({ component: 'http' });
  const line = requestLineWriter(child);
  line('GET', 'a', '/', 200, 1);
  assert.equal(JSON.parse(lines[0]!).component, 'http');
  child.level = 'warn';
  line('GET', 'a', '/', 200, 1);
  assert.equal(lines.length, 1, 'nothing at warn');
});

test('a logger with a mixin gets its line through pino, mixin included', () => {
  const { log, lines } = capture({ mixin: () => ({ extra: 1 }) });
  requestLineWriter(log)('GET', 'a', '/', 200, 1);
  assert.equal(JSON.parse(lines[0]!).extra, 1);
});

test('one writer used for many requests writes each its own method and host, as pino would', () => {
  const { log, lines } = capture();
  const line = requestLineWriter(log);
  const requests = [
    ['GET', 'a:1'],
    ['GET', 'a:1'],
    ['POST', 'a:1'],
    ['POST', 'b"2'],
    ['GET', undefined],
    ['GET', 'a:1'],
  ] as const;
  for (const [method, host] of requests) {
    log.info({ method, host, url: '/', status: 200, ms: 1 }, 'request');
    line(method, host, '/', 200, 1);
  }
  for (let i = 0; i < lines.length; i += 2) assert.equal(lines[i + 1], lines[i]);
  assert.deepEqual(
    lines
      .filter((_, i) => i % 2 === 1)
      .map((l) => JSON.parse(l) as { method: string; host?: string })
      .map((l) => [l.method, l.host]),
    requests.map(([m, h]) => [m, h]),
  );
});

test('jsonString writes every string as JSON.stringify does', () => {
  const hostile = [
    '',
    'plain',
    'a"b',
    'back\\slash',
    '\u0000\u0001\u001f',
    '\b\f\n\r\t',
    '\u007f\u0080\u00ff',
    'é ünïcödé',
    '\u2028\u2029',
    '😀 pair',
    '\ud800 lone high',
    'lone low \udfff',
    '\udfff\ud800 reversed',
    'end high \ud83d',
  ];
  for (const s of hostile) assert.equal(jsonString(s), JSON.stringify(s), JSON.stringify(s));
  // Random strings over the characters JSON.stringify treats apart, and ASCII (a fixed seed, so that a
  // failure can be replayed).
  const special = [
    0x00, 0x08, 0x1f, 0x20, 0x22, 0x2f, 0x5c, 0x7f, 0xe9, 0x2028, 0xd800, 0xdbff, 0xdc00, 0xdfff,
  ];
  let x = 17;
  const rand = (): number => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 5000; i++) {
    let s = '';
    for (let n = Math.floor(rand() * 12); n > 0; n--)
      s += String.fromCharCode(
        rand() < 0.6 ? 0x20 + Math.floor(rand() * 95) : special[Math.floor(rand() * special.length)]!,
      );
    assert.equal(jsonString(s), JSON.stringify(s));
  }
});
