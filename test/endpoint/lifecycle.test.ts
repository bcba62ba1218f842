/**
 * The endpoint lifecycle with pipelines of the test's own: steps run in order until one answers,
 * checks before the body refuse without recording, repeated answer headers survive to the socket and
 * the history, and an endpoint sees the request's own headers (no stand-in set).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { createServer } from 'node:http';
import { until } from '../helpers/until.js';
import { startApp } from '../helpers/app.js';
import { rawRequest } from '../helpers/raw.js';
import {
  endpointLifecycle,
  targetFinder,
  type ResolvedEndpoint,
  type Step,
} from '../../src/endpoint/index.js';
import type { Answer } from '../../src/http/index.js';
import { endpointPlane } from '../../src/serve/index.js';

async function harness(steps: Step[], refuse?: Answer) {
  const app = await startApp();
  const seen: string[] = [];
  const probe = {
    ...(refuse ? { beforeBody: () => ({ refuse }) } : {}),
    steps: [
      ...steps,
      ((x) => {
        seen.push(`default:${x.request.headers['content-type'] ?? ''}`);
        return { behavior: 'default', answer: { status: 200, headers: {}, body: 'default' } };
      }) satisfies Step,
    ],
  };
  const plane = endpointPlane({
    lifecycle: endpointLifecycle<ResolvedEndpoint>(app.ctx, {
      builtIn: new Map([['probe', probe]]),
      user: probe,
      endpoints: app.ctx.endpoints,
    }),
    log: () => {},
    logger: app.ctx.log,
    captureLimit: app.ctx.config.captureLimit,
    faultTimeoutMax: app.ctx.config.faultTimeoutMax,
  });
  const targetOf = targetFinder('localhost');
  const server = createServer((req, res) => {
    const target = targetOf(req);
    if (target) plane.handle(req, res, target);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    app,
    port,
    seen,
    async stop() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await app.stop();
    },
  };
}

test('steps run in order until one answers; the rest never run', async () => {
  const order: string[] = [];
  const h = await harness([
    () => void order.push('first'),
    async () => {
      order.push('second');
      return { behavior: 'mock-rule', ruleId: 'r1', answer: { status: 201, headers: {}, body: 'ok' } };
    },
    () => void order.push('third'),
  ]);
  try {
    const res = await fetch(`http://127.0.0.1:${h.port}/e/probe/x`);
    assert.equal(res.status, 201);
    assert.equal(await res.text(), 'ok');
    assert.deepEqual(order, ['first', 'second']);
    assert.deepEqual(h.seen, []);
    await h.app.ctx.history.flush();
    const [entry] = (await h.app.ctx.store.listHistory('probe', {}, 10)).data;
    assert.equal(entry?.behavior, 'mock-rule');
    assert.equal(entry?.ruleId, 'r1');
  } finally {
    await h.stop();
  }
});

test('an answer with a repeated header sends each value on its own line and records both', async () => {
  const h = await harness([
    () => ({
      behavior: 'proxy',
      answer: { status: 200, headers: { 'set-cookie': ['a=1; Path=/', 'b=2; Path=/'] }, body: 'two' },
    }),
  ]);
  try {
    const raw = await rawRequest(
      h.port,
      'GET /e/probe/cookies HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    const lines = raw.raw.split('\r\n').filter((l) => l.toLowerCase().startsWith('set-cookie:'));
    assert.deepEqual(lines, ['set-cookie: a=1; Path=/', 'set-cookie: b=2; Path=/']);
    await h.app.ctx.history.flush();
    const [entry] = (await h.app.ctx.store.listHistory('probe', {}, 10)).data;
    // Both values are kept, each redacted (SPEC §12).
    assert.deepEqual(entry?.responseHeaders['set-cookie'], ['a=[REDACTED]; Path=/', 'b=[REDACTED]; Path=/']);
  } finally {
    await h.stop();
  }
});

test('a refusal before the body is sent at once and not recorded', async () => {
  const h = await harness([], { status: 429, headers: { 'x-why': 'test' }, body: 'no' });
  try {
    const res = await fetch(`http://127.0.0.1:${h.port}/e/probe/x`, { method: 'POST', body: 'payload' });
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('x-why'), 'test');
    assert.deepEqual(h.seen, []);
    await h.app.ctx.history.flush();
    assert.equal((await h.app.ctx.store.listHistory('probe', {}, 10)).data.length, 0);
  } finally {
    await h.stop();
  }
});

test('steps see the request headers as sent, an unparsable Content-Type included', async () => {
  const h = await harness([]);
  try {
    const res = await fetch(`http://127.0.0.1:${h.port}/e/probe/x`, {
      method: 'POST',
      headers: { 'content-type': ';;;' },
      body: 'x',
    });
    assert.equal(res.status, 200);
    assert.deepEqual(h.seen, ['default:;;;']);
  } finally {
    await h.stop();
  }
});

test('a streamed answer reaches the client as it comes and is recorded once it ends, cut at the capture limit', async () => {
  let push: ((chunk: string | null) => void) | undefined;
  const h = await harness([
    () => {
      const stream = new Readable({ read() {} });
      push = (c) => void stream.push(c);
      return { behavior: 'proxy', answer: { status: 207, headers: { 'x-up': 'yes' }, body: '', stream } };
    },
  ]);
  try {
    const res = await fetch(`http://127.0.0.1:${h.port}/e/probe/streamed`);
    assert.equal(res.status, 207);
    assert.equal(res.headers.get('x-up'), 'yes');
    const reader = res.body!.getReader();
    push!('first part, ');
    // The first part arrives before the stream has ended.
    assert.equal(new TextDecoder().decode((await reader.read()).value), 'first part, ');
    push!('x'.repeat(2 * 1024 * 1024));
    push!(null);
    let rest = 0;
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += r.value.length;
    assert.equal(rest, 2 * 1024 * 1024);
    await h.app.ctx.history.flush();
    const [entry] = (await h.app.ctx.store.listHistory('probe', {}, 1)).data;
    assert.equal(entry?.behavior, 'proxy');
    assert.equal(entry?.status, 207);
    assert.equal(entry?.responseBodyTruncated, true);
    assert.equal(entry?.responseBody.length, h.app.ctx.config.captureLimit);
    assert.ok(entry?.responseBody.startsWith('first part, xxx'));
  } finally {
    await h.stop();
  }
});

test('a streamed answer cut mid-way is recorded with what went through and a problem saying so', async () => {
  const h = await harness([
    () => {
      const stream = new Readable({ read() {} });
      stream.push('half an answer');
      setTimeout(() => stream.destroy(new Error('tunnel closed')), 50);
      return { behavior: 'tunnel', answer: { status: 200, headers: {}, body: '', stream } };
    },
  ]);
  try {
    const res = await fetch(`http://127.0.0.1:${h.port}/e/probe/cut`);
    assert.equal(res.status, 200);
    await assert.rejects(res.text(), 'the client sees the answer end abruptly, not a whole body');
    await until(async () => {
      await h.app.ctx.history.flush();
      return (await h.app.ctx.store.countHistory('probe', {})) === 1;
    }, 2000);
    const [entry] = (await h.app.ctx.store.listHistory('probe', {}, 1)).data;
    assert.equal(entry?.responseBody, 'half an answer');
    assert.match(entry?.problems[0] ?? '', /cut after 14 bytes: tunnel closed/);
  } finally {
    await h.stop();
  }
});
