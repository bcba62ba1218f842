/** The request log line is written straight to pino's stream: it must read exactly like pino's own. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { requestLineWriter } from '../../src/logger.js';

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
