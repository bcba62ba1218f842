/**
 * Callouts go through the one outbound client and SSRF guard (SECURITY.md): refused targets answer
 * 502 `target_refused` (sync) or are recorded failed (async), a slow one 504 within PROXY_TIMEOUT, and
 * a callout that calls Mockingbird back is stopped after CALLOUT_MAX_DEPTH (508 `loop_detected`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../helpers/api-helpers.js';
import { send, upstream } from '../proxy/proxy-helpers.js';
import { calloutApp, calloutRule, entries, eventually } from './callout-helpers.js';

const errorCode = (text: string) => (JSON.parse(text) as { error: { code: string } }).error.code;

test('sync callout to a metadata address: 502 target_refused, recorded failed with the reason', async () => {
  const app = await calloutApp();
  try {
    await calloutRule(app, '/meta', { behavior: 'sync', callout: { url: 'http://169.254.169.254/latest' } });
    const res = await send(`${app.endpointUrl}/meta`);
    assert.equal(res.status, 502);
    assert.equal(errorCode(res.text), 'target_refused');
    const [e] = await entries(app);
    assert.equal(e?.behavior, 'callout');
    assert.equal(e?.callout?.state, 'failed');
    assert.match(e?.callout?.error ?? '', /link-local/);
  } finally {
    await app.stop();
  }
});

test('sync callout to a name that resolves to a denied range (PROXY_DENY): 502 target_refused', async () => {
  const up = await upstream((_req, res) => res.end('should not be reached'));
  const app = await calloutApp({ proxyDeny: ['127.0.0.0/8', '::1/128'] });
  try {
    await calloutRule(app, '/local', { behavior: 'sync', callout: { url: `http://localhost:${up.port}/` } });
    const res = await send(`${app.endpointUrl}/local`);
    assert.equal(res.status, 502);
    assert.equal(errorCode(res.text), 'target_refused');
    assert.equal(up.seen.length, 0, 'no connection made');
  } finally {
    await app.stop();
    await up.close();
  }
});

test('async callout to a mapped metadata address: the rule answers; the callout is recorded refused', async () => {
  const app = await calloutApp();
  try {
    await calloutRule(app, '/meta-async', {
      behavior: 'async',
      status: 204,
      callout: { url: 'http://[::ffff:169.254.169.254]/x' },
    });
    const res = await send(`${app.endpointUrl}/meta-async`);
    assert.equal(res.status, 204);
    const e = await eventually(async () => {
      const [x] = await entries(app);
      return x?.callout?.state === 'failed' ? x : undefined;
    });
    assert.match(e.callout?.error ?? '', /refused/);
  } finally {
    await app.stop();
  }
});

test('sync callout target too slow: 504 gateway_timeout within PROXY_TIMEOUT', async () => {
  const up = await upstream((_req, res) => void setTimeout(() => res.end('late'), 3000).unref());
  const app = await calloutApp({ proxyTimeout: 300 });
  try {
    await calloutRule(app, '/slow', { behavior: 'sync', callout: { url: up.url } });
    const started = Date.now();
    const res = await send(`${app.endpointUrl}/slow`);
    assert.equal(res.status, 504);
    assert.equal(errorCode(res.text), 'gateway_timeout');
    assert.ok(Date.now() - started < 2500);
  } finally {
    await app.stop();
    await up.close();
  }
});

test('a sync callout that calls its own rule back is stopped at CALLOUT_MAX_DEPTH: 508 loop_detected', async () => {
  const app = await calloutApp({ calloutMaxDepth: 2 });
  try {
    await calloutRule(app, '/loop', { behavior: 'sync', callout: { url: `${app.url}/e/shop/loop` } });
    const res = await send(`${app.endpointUrl}/loop`);
    assert.equal(res.status, 508);
    assert.equal(errorCode(res.text), 'loop_detected');
    const all = await entries(app);
    // The client's request, one callout back (depth 1), and the one refused at depth 2.
    assert.equal(all.length, 3);
    assert.ok(all.every((e) => e.behavior === 'callout' && e.status === 508));
    assert.equal(all.filter((e) => /CALLOUT_MAX_DEPTH/.test(e.callout?.error ?? '')).length, 1);
  } finally {
    await app.stop();
  }
});

test('an async callout that calls its own rule back stops at CALLOUT_MAX_DEPTH too', async () => {
  const app = await calloutApp({ calloutMaxDepth: 2 });
  try {
    await calloutRule(app, '/echoes', {
      behavior: 'async',
      body: 'ok',
      callout: { url: `${app.url}/e/shop/echoes` },
    });
    assert.equal((await send(`${app.endpointUrl}/echoes`)).status, 200);
    const stopped = await eventually(async () => {
      const all = await entries(app);
      return all.some((e) => /CALLOUT_MAX_DEPTH/.test(e.callout?.error ?? '')) ? all : undefined;
    });
    assert.equal(stopped.length, 3);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await entries(app)).length, 3, 'nothing more is sent');
  } finally {
    await app.stop();
  }
});

test('a callout delay whose min is over its max is refused when the rule is saved', async () => {
  const app = await calloutApp();
  try {
    const r = await call(app, 'POST', '/endpoints/shop/rules', {
      conditions: [{ type: 'path', operator: 'equals', value: '/x' }],
      action: {
        type: 'callout',
        behavior: 'async',
        callout: { url: 'http://a.b/', delay: { min: 5, max: 1 } },
      },
    });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.details[0].path, '/action/callout/delay');
    const tooLong = await call(app, 'POST', '/endpoints/shop/rules', {
      conditions: [{ type: 'path', operator: 'equals', value: '/x' }],
      action: {
        type: 'callout',
        behavior: 'async',
        callout: { url: 'http://a.b/', delay: { min: 0, max: 600_001 } },
      },
    });
    assert.equal(tooLong.status, 400);
  } finally {
    await app.stop();
  }
});
