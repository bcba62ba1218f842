/** At `info`, one JSON line per request, with the host as sent and any access_token hidden. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveCli } from '../helpers/cli.js';

/** The request lines among a server's log lines. */
const requestLines = (stdout: string): Record<string, unknown>[] =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l['msg'] === 'request');

it('logs one line per request, endpoint requests included', async (t) => {
  const server = await serveCli({ DATA_DIR: mkdtempSync(join(tmpdir(), 'mb-log-')) }, 20_000, 'info');
  t.after(() => server.child.kill('SIGKILL'));
  const base = `http://127.0.0.1:${server.port}`;
  const echo = await fetch(`${base}/e/echo/logged?x=1`);
  await echo.text();
  const events = await fetch(`${base}/api/v2/endpoints/echo/events?access_token=mb_not_a_real_key`);
  assert.equal(events.status, 401);
  await events.text();
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);

  const lines = requestLines(server.stdout());
  assert.equal(lines.length, 2, JSON.stringify(lines));
  assert.deepEqual(
    {
      method: lines[0]!['method'],
      host: lines[0]!['host'],
      url: lines[0]!['url'],
      status: lines[0]!['status'],
    },
    { method: 'GET', host: `127.0.0.1:${server.port}`, url: '/e/echo/logged?x=1', status: 200 },
  );
  assert.equal(typeof lines[0]!['ms'], 'number');
  assert.equal(lines[1]!['url'], '/api/v2/endpoints/echo/events?access_token=[redacted]');
  assert.ok(!server.stdout().includes('mb_not_a_real_key'));
});

it('logs one line for each answer the endpoint door writes: GET, HEAD, an unknown endpoint', async (t) => {
  const server = await serveCli({ DATA_DIR: mkdtempSync(join(tmpdir(), 'mb-log-')) }, 20_000, 'info');
  t.after(() => server.child.kill('SIGKILL'));
  const base = `http://127.0.0.1:${server.port}`;
  // A whole answer, HEAD (no body) and an unknown endpoint (404): each written by the door.
  for (const [method, path] of [
    ['GET', '/e/echo/lane'],
    ['HEAD', '/e/echo/head'],
    ['GET', '/e/no-such-endpoint/x'],
  ] as const)
    await (await fetch(base + path, { method })).arrayBuffer();
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
  const lines = requestLines(server.stdout());
  assert.deepEqual(
    lines.map((l) => [l['method'], l['url'], l['status'], typeof l['ms']]),
    [
      ['GET', '/e/echo/lane', 200, 'number'],
      ['HEAD', '/e/echo/head', 200, 'number'],
      ['GET', '/e/no-such-endpoint/x', 404, 'number'],
    ],
  );
});
