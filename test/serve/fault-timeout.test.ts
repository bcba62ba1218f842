/**
 * The `timeout` fault costs the server one socket and no CPU (issue 37): held sockets are counted by
 * the door, the process answers others meanwhile and spends next to no CPU time, a client that gives
 * up frees its socket at once, FAULT_TIMEOUT_MAX closes one that waits on, and closing the server
 * releases every held socket (it does not wait for the bound).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { ConfigError, loadConfig } from '../../src/config.js';
import { useApp } from '../helpers/endpoint.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { until } from '../helpers/until.js';

async function timeoutRule(app: TestApp, ep: string): Promise<void> {
  await createEndpoint(app, ep);
  const r = await call(app, 'POST', `/endpoints/${ep}/rules`, {
    conditions: [{ type: 'path', operator: 'equals', value: '/hang' }],
    action: { type: 'mock', body: 'never', fault: 'timeout' },
  });
  assert.equal(r.status, 201, r.text);
}

/** Waits (generously: a loaded machine) until the door holds `n` sockets. */
function heldNow(app: TestApp, n: number): Promise<void> {
  return until(
    () => app.plane.stats().faultsHeld === n,
    10_000,
    `not ${n} held: ${app.plane.stats().faultsHeld}`,
  );
}

/** A raw socket asking for the hanging path; `closed` resolves with the bytes it got. */
function hang(app: TestApp, ep: string) {
  const s = net.connect(app.port, '127.0.0.1');
  let bytes = 0;
  s.on('data', (d) => (bytes += d.length));
  s.on('error', () => {});
  const closed = new Promise<number>((resolve) => s.on('close', () => resolve(bytes)));
  s.write(`GET /e/${ep}/hang HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
  return { socket: s, closed };
}

void test('held timeouts cost a socket each and no CPU; others are answered meanwhile', async (t) => {
  const app = await useApp(t, { faultTimeoutMax: 60_000 }, { listen: true });
  await timeoutRule(app, 'hold');
  const held = Array.from({ length: 5 }, () => hang(app, 'hold'));
  await heldNow(app, 5);
  // The process stays responsive: another endpoint answers, and the echo too.
  const other = await fetch(`${app.url}/e/hold/other`);
  assert.equal(other.status, 200);
  assert.match(await other.text(), /nothing configured/);
  // CPU time over half a second while five are held: the timers do not poll. The first windows
  // after start carry the process's own warm-up, so the quietest of a few is measured.
  const windows: number[] = [];
  for (let i = 0; i < 8 && !(windows.at(-1)! < 50_000); i++) {
    const before = process.cpuUsage();
    await new Promise((r) => setTimeout(r, 500));
    const used = process.cpuUsage(before);
    windows.push(used.user + used.system);
  }
  assert.ok(Math.min(...windows) < 50_000, `CPU µs per 500 ms: ${windows.join(', ')}`);
  assert.equal(app.plane.stats().faultsHeld, 5);
  // A client that gives up frees its socket at once.
  held[0]!.socket.destroy();
  await heldNow(app, 4);
  for (const h of held.slice(1)) h.socket.destroy();
  await heldNow(app, 0);
});

void test('FAULT_TIMEOUT_MAX closes a held socket that the client keeps waiting on, having sent nothing', async (t) => {
  const app = await useApp(t, { faultTimeoutMax: 200 }, { listen: true });
  await timeoutRule(app, 'bounded');
  const started = performance.now();
  const h = hang(app, 'bounded');
  assert.equal(await h.closed, 0);
  // Generous: at least the bound, and not the client's doing.
  assert.ok(performance.now() - started >= 190, `closed after ${performance.now() - started} ms`);
  await heldNow(app, 0);
});

void test('closing the server releases every held socket without waiting for the bound', async () => {
  const app = await startApp({ faultTimeoutMax: 600_000, shutdownTimeout: 30_000 }, { listen: true });
  await timeoutRule(app, 'closing');
  const h = hang(app, 'closing');
  await heldNow(app, 1);
  const started = performance.now();
  await app.stop();
  assert.equal(await h.closed, 0);
  assert.ok(performance.now() - started < 10_000, `stop took ${performance.now() - started} ms`);
});

void test('FAULT_TIMEOUT_MAX: 1 ms to an hour, 60 s by default', () => {
  assert.equal(loadConfig({}, {}).faultTimeoutMax, 60_000);
  assert.throws(() => loadConfig({}, { FAULT_TIMEOUT_MAX: '0' }), ConfigError);
  assert.equal(loadConfig({}, { FAULT_TIMEOUT_MAX: '1' }).faultTimeoutMax, 1);
  assert.equal(loadConfig({}, { FAULT_TIMEOUT_MAX: '3599999' }).faultTimeoutMax, 3_599_999);
  assert.equal(loadConfig({}, { FAULT_TIMEOUT_MAX: '3600000' }).faultTimeoutMax, 3_600_000);
  assert.throws(() => loadConfig({}, { FAULT_TIMEOUT_MAX: '3600001' }), ConfigError);
  assert.equal(loadConfig({ 'fault-timeout-max': '500' }, {}).faultTimeoutMax, 500);
});
