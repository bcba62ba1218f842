/**
 * Faults on the socket (issue 37), as real clients see them: undici's `request`, Node's `fetch`, a raw
 * `net` socket and curl each get the error each fault is meant to give; the history records the
 * request as `mock-rule` with a `fault: <name>` problem line and no body; a weighted response may be
 * a fault; the rule checks refuse what cannot be sent.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { request, errors } from 'undici';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertDetail, assertError, call, createEndpoint } from '../helpers/api-helpers.js';
import { FAULT_HEAD_MAX, FAULT_RANDOM_BYTES, MALFORMED_CHUNK, malformedHead } from '../../src/serve/fault.js';

let app: TestApp;
const EP = 'faulty';

before(async () => {
  // A short hold (undici's timers under a second tick every half second); the timeout fault's own
  // test is fault-timeout.test.ts.
  app = await startApp({ faultTimeoutMax: 2000 }, { listen: true });
  await createEndpoint(app, EP);
  for (const fault of [
    'connection_reset',
    'empty_response',
    'malformed_chunk',
    'random_data_then_close',
    'timeout',
  ]) {
    const r = await call(app, 'POST', `/endpoints/${EP}/rules`, {
      conditions: [{ type: 'path', operator: 'equals', value: `/${fault}` }],
      action: {
        type: 'mock',
        status: 201,
        headers: [{ key: 'x-kept', value: 'yes' }],
        body: '{"never":"sent"}',
        fault,
      },
    });
    assert.equal(r.status, 201, r.text);
  }
});
after(async () => {
  await app.stop();
});

const url = (path: string) => `${app.url}/e/${EP}${path}`;

/** What a raw socket receives for `path` until the server closes, and how it closed. */
function raw(path: string): Promise<{ bytes: Buffer; error?: string }> {
  return new Promise((resolve) => {
    const s = net.connect(app.port, '127.0.0.1');
    const got: Buffer[] = [];
    let error: string | undefined;
    s.on('data', (d) => got.push(d));
    s.on('error', (e: NodeJS.ErrnoException) => (error = e.code));
    s.on('close', () => resolve({ bytes: Buffer.concat(got), ...(error ? { error } : {}) }));
    s.write(`GET /e/${EP}${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
  });
}

async function undiciError(path: string): Promise<Error & { code?: string }> {
  try {
    const r = await request(url(path));
    await r.body.text();
  } catch (err) {
    return err as Error & { code?: string };
  }
  assert.fail(`undici read an answer for ${path}`);
}

async function fetchError(path: string): Promise<TypeError & { cause?: Error & { code?: string } }> {
  try {
    const r = await fetch(url(path));
    await r.text();
  } catch (err) {
    return err as TypeError & { cause?: Error & { code?: string } };
  }
  assert.fail(`fetch read an answer for ${path}`);
}

/** curl's exit code and its error line (`-sS`: silent, errors shown). */
function curl(path: string, ...args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile('curl', ['-sS', '-o', '/dev/null', ...args, url(path)], (err, _out, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code) : 0, stderr });
    });
  });
}
const hasCurl = await new Promise<boolean>((resolve) =>
  execFile('curl', ['--version'], (err) => resolve(!err)),
);

async function lastEntry(path: string) {
  await app.ctx.history.flush();
  const { data } = await app.ctx.store.listHistory(EP, {}, 50);
  const e = data.find((x) => x.path === path);
  assert.ok(e, `no entry for ${path}`);
  return e;
}

void test('connection_reset: an RST; undici and fetch raise ECONNRESET, a raw socket errors ECONNRESET', async () => {
  const u = await undiciError('/connection_reset');
  assert.equal(u.code, 'ECONNRESET');
  const f = await fetchError('/connection_reset');
  assert.equal(f.name, 'TypeError');
  assert.equal(f.cause?.code, 'ECONNRESET');
  const r = await raw('/connection_reset');
  assert.equal(r.error, 'ECONNRESET');
  assert.equal(r.bytes.length, 0);
  if (hasCurl) assert.equal((await curl('/connection_reset')).code, 56, 'curl: failure receiving data');
});

void test('empty_response: closed before a byte; undici raises SocketError "other side closed"', async () => {
  const u = await undiciError('/empty_response');
  assert.ok(u instanceof errors.SocketError, String(u));
  assert.equal(u.code, 'UND_ERR_SOCKET');
  const f = await fetchError('/empty_response');
  assert.equal(f.cause?.code, 'UND_ERR_SOCKET');
  const r = await raw('/empty_response');
  assert.equal(r.error, undefined, 'a clean close, not a reset');
  assert.equal(r.bytes.length, 0);
  if (hasCurl) assert.equal((await curl('/empty_response')).code, 52, 'curl: empty reply from server');
});

void test('malformed_chunk: the head arrives, then a chunk size that is not hex; undici raises HTTPParserError', async () => {
  const u = await undiciError('/malformed_chunk');
  assert.equal(u.name, 'HTTPParserError');
  assert.match(u.message, /chunk size/i);
  // fetch has the head (a 201) and fails reading the body.
  const res = await fetch(url('/malformed_chunk'));
  assert.equal(res.status, 201);
  assert.equal(res.headers.get('x-kept'), 'yes');
  await assert.rejects(res.text(), (err: Error & { cause?: Error }) => {
    assert.equal(err.name, 'TypeError');
    assert.equal(err.cause?.name, 'HTTPParserError');
    return true;
  });
  const r = await raw('/malformed_chunk');
  const text = r.bytes.toString('latin1');
  assert.match(text, /^HTTP\/1\.1 201 Created\r\n/);
  assert.match(text, /\r\ntransfer-encoding: chunked\r\n\r\n/);
  assert.ok(text.endsWith(`\r\n\r\n${MALFORMED_CHUNK}`));
  assert.doesNotMatch(text, /content-length/i);
  assert.doesNotMatch(text, /never/, 'the body is not sent');
  if (hasCurl) assert.equal((await curl('/malformed_chunk')).code, 56, 'curl: bad chunked encoding');
});

void test('random_data_then_close: FAULT_RANDOM_BYTES bytes that are not HTTP; undici raises HTTPParserError', async () => {
  const u = await undiciError('/random_data_then_close');
  assert.equal(u.name, 'HTTPParserError');
  const f = await fetchError('/random_data_then_close');
  assert.equal(f.cause?.name, 'HTTPParserError');
  const a = await raw('/random_data_then_close');
  const b = await raw('/random_data_then_close');
  assert.equal(a.bytes.length, FAULT_RANDOM_BYTES);
  assert.equal(b.bytes.length, FAULT_RANDOM_BYTES);
  assert.notDeepEqual(a.bytes, b.bytes, 'random each time');
  if (hasCurl) assert.notEqual((await curl('/random_data_then_close')).code, 0);
});

void test('timeout: nothing is sent; a client that gives up sees its own timeout (undici HeadersTimeoutError)', async () => {
  await assert.rejects(
    request(url('/timeout'), { headersTimeout: 200 }),
    (err: Error) => err instanceof errors.HeadersTimeoutError,
  );
  await assert.rejects(fetch(url('/timeout'), { signal: AbortSignal.timeout(200) }), {
    name: 'TimeoutError',
  });
  if (hasCurl) assert.equal((await curl('/timeout', '--max-time', '0.2')).code, 28, 'curl: timed out');
  // The server's bound (FAULT_TIMEOUT_MAX, 2 s here) closes it for a client that waits on.
  const r = await raw('/timeout');
  assert.equal(r.bytes.length, 0);
});

void test('the history records a fault as mock-rule, names it, and keeps no body', async () => {
  for (const fault of [
    'connection_reset',
    'empty_response',
    'malformed_chunk',
    'random_data_then_close',
    'timeout',
  ]) {
    const e = await lastEntry(`/${fault}`);
    assert.equal(e.behavior, 'mock-rule');
    assert.equal(e.ruleMatched, true);
    assert.equal(e.responseBody, '');
    assert.equal(e.problems.filter((p) => p.startsWith(`fault: ${fault} (`)).length, 1, e.problems.join());
  }
  // And the API shows it so.
  const listed = await call(
    app,
    'GET',
    `/endpoints/${EP}/requests?mode=verbose&path=/empty_response&limit=1`,
  );
  assert.match(JSON.stringify(listed.body.data[0]), /fault: empty_response/);
});

void test('a weighted response can be a fault: the other response answers normally', async () => {
  await createEndpoint(app, 'weighted-faults');
  const r = await call(app, 'POST', '/endpoints/weighted-faults/rules', {
    conditions: [{ type: 'path', operator: 'equals', value: '/w' }],
    action: {
      type: 'weighted',
      responses: [
        { name: 'broken', weight: 50, fault: 'empty_response' },
        { name: 'fine', weight: 50, body: 'ok' },
      ],
    },
  });
  assert.equal(r.status, 201, r.text);
  let ok = 0;
  let broken = 0;
  for (let i = 0; i < 40; i++) {
    try {
      const res = await request(`${app.url}/e/weighted-faults/w`);
      assert.equal(await res.body.text(), 'ok');
      ok++;
    } catch (err) {
      assert.equal((err as { code?: string }).code, 'UND_ERR_SOCKET');
      broken++;
    }
  }
  assert.ok(ok > 0 && broken > 0, `ok ${ok}, broken ${broken}`);
  await app.ctx.history.flush();
  const { data } = await app.ctx.store.listHistory('weighted-faults', {}, 100);
  assert.equal(
    data.filter(
      (e) => e.responseName === 'broken' && e.problems.some((p) => p.startsWith('fault: empty_response')),
    ).length,
    broken,
  );
});

void test('rule checks: an unknown fault, a fault beside chunked, and disordered distributions are 400', async () => {
  const rule = (action: Record<string, unknown>) => ({
    conditions: [{ type: 'path', operator: 'equals', value: '/x' }],
    action: { type: 'mock', ...action },
  });
  const post = (action: Record<string, unknown>) => call(app, 'POST', `/endpoints/${EP}/rules`, rule(action));
  let r = await post({ fault: 'explode' });
  assertError(r, 400, 'validation_error');
  r = await post({ fault: 'timeout', chunked: { chunks: 2, totalDuration: 10 } });
  assertDetail(r, '/action/chunked');
  r = await post({ delay: { distribution: 'uniform', min: 20, max: 10 } });
  assertDetail(r, '/action/delay');
  r = await post({ delay: { distribution: 'lognormal', median: 500, sigma: 1, max: 100 } });
  assertDetail(r, '/action/delay');
  r = await post({ delay: { distribution: 'normal', mean: 5 } });
  assertError(r, 400, 'validation_error');
  r = await call(app, 'POST', `/endpoints/${EP}/rules`, {
    conditions: [{ type: 'path', operator: 'equals', value: '/x' }],
    action: {
      type: 'weighted',
      responses: [{ weight: 100, fault: 'timeout', chunked: { chunks: 1, totalDuration: 0 } }],
    },
  });
  assertDetail(r, '/action/responses/0/chunked');
});

void test("malformed_chunk: the head keeps the answer's headers up to FAULT_HEAD_MAX, framing ones never", () => {
  const status = 'HTTP/1.1 200 OK\r\n';
  const head = (valueLength: number) =>
    malformedHead({
      status: 200,
      headers: { 'content-length': '5', 'x-a': 'a'.repeat(valueLength), connection: 'keep-alive' },
      body: '',
    });
  // `x-a: …\r\n` is 7 bytes besides its value.
  const fits = FAULT_HEAD_MAX - status.length - 7;
  for (const [n, kept] of [
    [fits - 1, true],
    [fits, true],
    [fits + 1, false],
  ] as const) {
    const h = head(n);
    assert.equal(h.includes('x-a: '), kept, `value of ${n}`);
    assert.ok(h.endsWith('transfer-encoding: chunked\r\n\r\n'));
    assert.doesNotMatch(h, /content-length|connection/);
    if (kept) assert.equal(h.length, status.length + 7 + n + 'transfer-encoding: chunked\r\n\r\n'.length);
  }
});
