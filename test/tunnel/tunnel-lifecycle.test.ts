/**
 * The tunnel's connections coming and going, with the real processes: a client killed while it is
 * answering makes that request 502 at once; the client reconnects by itself after the server restarts
 * on the same port with the same DATA_DIR; two clients of one endpoint share its requests.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_KEY } from '../helpers/app.js';
import { serveCli } from '../helpers/cli.js';
import { until } from '../helpers/until.js';
import { startTarget, startTunnelCli, tunnelEndpoint } from './tunnel-helpers.js';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'mb-tunnel-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

it('a client killed mid-request makes that request 502 at once', async (t) => {
  const server = await serveCli({ DATA_DIR: tempDir(t), MOCKINGBIRD_API_KEY: ADMIN_KEY });
  t.after(() => server.child.kill('SIGKILL'));
  const target = await startTarget(() => {}); // holds every request
  t.after(() => target.close());
  await tunnelEndpoint(server.port, 'killed');
  const tunnel = startTunnelCli(server.port, 'killed', target.port);
  t.after(() => tunnel.child.kill('SIGKILL'));
  await tunnel.connected();

  const answer = fetch(`http://127.0.0.1:${server.port}/e/killed/held`);
  await until(() => target.seen.length === 1, 5000, 'the request did not reach the target');
  const killedAt = Date.now();
  tunnel.child.kill('SIGKILL');
  const res = await answer;
  assert.equal(res.status, 502);
  assert.match(await res.text(), /tunnel client disconnected/);
  assert.ok(Date.now() - killedAt < 2000, 'answered at once, not after the timeout');
});

it('the client reconnects after the server restarts on the same port and DATA_DIR', async (t) => {
  const dir = tempDir(t);
  const first = await serveCli({ DATA_DIR: dir, MOCKINGBIRD_API_KEY: ADMIN_KEY });
  t.after(() => first.child.kill('SIGKILL'));
  const target = await startTarget((_req, res) => res.end('local'));
  t.after(() => target.close());
  await tunnelEndpoint(first.port, 'restarted');
  const tunnel = startTunnelCli(first.port, 'restarted', target.port);
  t.after(() => tunnel.child.kill('SIGKILL'));
  await tunnel.connected();

  first.child.kill('SIGTERM');
  assert.equal(await first.exited, 0, 'the server closes with a tunnel connected');
  const second = await serveCli(
    { DATA_DIR: dir, MOCKINGBIRD_API_KEY: ADMIN_KEY },
    20_000,
    'warn',
    first.port,
  );
  t.after(() => second.child.kill('SIGKILL'));
  await tunnel.connected(2);
  assert.match(tunnel.stderr(), /reconnecting in \d+\.\d s/);
  const res = await fetch(`http://127.0.0.1:${second.port}/e/restarted/again`);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), 'local');
  tunnel.child.kill('SIGINT');
  assert.equal(await tunnel.exited, 0, 'SIGINT ends the client cleanly');
});

it('two clients of one endpoint share its requests', async (t) => {
  const server = await serveCli({ DATA_DIR: tempDir(t), MOCKINGBIRD_API_KEY: ADMIN_KEY });
  t.after(() => server.child.kill('SIGKILL'));
  const a = await startTarget((_req, res) => res.end('a'));
  const b = await startTarget((_req, res) => res.end('b'));
  t.after(() => a.close());
  t.after(() => b.close());
  await tunnelEndpoint(server.port, 'shared');
  const ta = startTunnelCli(server.port, 'shared', a.port);
  const tb = startTunnelCli(server.port, 'shared', b.port);
  t.after(() => ta.child.kill('SIGKILL'));
  t.after(() => tb.child.kill('SIGKILL'));
  await Promise.all([ta.connected(), tb.connected()]);
  const bodies: string[] = [];
  for (let i = 0; i < 6; i++)
    bodies.push(await (await fetch(`http://127.0.0.1:${server.port}/e/shared/${i}`)).text());
  assert.equal(bodies.filter((x) => x === 'a').length, 3);
  assert.equal(bodies.filter((x) => x === 'b').length, 3);
});
