/** GET /api/v2/endpoints/:ep/events over a real socket: delivery, auth, unsubscribe, server close. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createKey } from '../../src/api/index.js';
import { CountingBus } from '../helpers/counting-bus.js';
import { ADMIN_KEY, adminAuth, startApp, type TestApp } from '../helpers/app.js';
import { until } from '../helpers/until.js';
import { newEndpoint } from '../helpers/history-fixtures.js';

interface SseEvent {
  event: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON read field by field in assertions
  data: any;
}

interface Client {
  res: http.IncomingMessage;
  text: () => string;
  events: SseEvent[];
  next(name: string, timeoutMs?: number): Promise<SseEvent>;
  ended: Promise<void>;
  close(): void;
}

/** Opens the stream and parses `event:`/`data:` blocks as they arrive. */
function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      let buf = '';
      let all = '';
      const events: SseEvent[] = [];
      const waiters: (() => void)[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        all += chunk;
        buf += chunk;
        let i;
        while ((i = buf.indexOf('\n\n')) !== -1) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const ev = /^event: (.*)$/m.exec(block);
          const data = /^data: (.*)$/m.exec(block);
          if (ev && data) events.push({ event: ev[1]!, data: JSON.parse(data[1]!) });
        }
        for (const w of waiters.splice(0)) w();
      });
      const ended = new Promise<void>((r) => res.on('close', () => r()));
      resolve({
        res,
        events,
        text: () => all,
        ended,
        close: () => req.destroy(),
        next(name, timeoutMs = 1000) {
          return new Promise((ok, fail) => {
            const timer = setTimeout(() => fail(new Error(`no ${name} within ${timeoutMs} ms`)), timeoutMs);
            const check = (): void => {
              const found = events.find((e) => e.event === name);
              if (found) {
                clearTimeout(timer);
                ok(found);
              } else waiters.push(check);
            };
            check();
          });
        },
      });
    });
    req.on('error', reject);
  });
}

/** The JSON body of an answer that is not a stream (an error), once it has ended. */
async function whole(c: Client): Promise<{ error: { code: string } }> {
  await c.ended;
  return JSON.parse(c.text()) as { error: { code: string } };
}

let app: TestApp;
let bus: CountingBus;
before(async () => {
  bus = new CountingBus();
  app = await startApp({}, { listen: true, events: bus });
});
after(async () => {
  await app.stop();
});

const eventsUrl = (ep: string, query = '') => `${app.url}/api/v2/endpoints/${ep}/events${query}`;

void describe('delivery', () => {
  void test('opens with the SSE headers, a comment and a retry line', async () => {
    const ep = await newEndpoint(app, 'sse');
    const c = await connect(eventsUrl(ep), adminAuth);
    try {
      assert.equal(c.res.statusCode, 200);
      assert.match(String(c.res.headers['content-type']), /^text\/event-stream/);
      assert.match(String(c.res.headers['cache-control']), /no-cache/);
      await until(() => c.text().includes('\n\n'));
      assert.match(c.text(), /^: .*\nretry: \d+\n\n/);
    } finally {
      c.close();
    }
  });

  void test('rule.deleted published on the bus reaches the client within one second', async () => {
    const ep = await newEndpoint(app, 'sse');
    const c = await connect(eventsUrl(ep), adminAuth);
    try {
      await until(() => bus.active > 0 && c.text().length > 0);
      const sent = Date.now();
      app.ctx.events.publish({ endpoint: ep, name: 'rule.deleted', data: { id: 'rule-42' } });
      const got = await c.next('rule.deleted', 1000);
      assert.deepEqual(got.data, { id: 'rule-42' });
      assert.ok(Date.now() - sent < 1000);
      assert.match(c.text(), /event: rule\.deleted\ndata: \{"id":"rule-42"\}\n\n/);
    } finally {
      c.close();
    }
  });

  void test('request.created follows a request to the endpoint; other endpoints stay silent', async () => {
    const ep = await newEndpoint(app, 'sse');
    const other = await newEndpoint(app, 'sse');
    const c = await connect(eventsUrl(ep), adminAuth);
    const o = await connect(eventsUrl(other), adminAuth);
    try {
      const res = await fetch(`${app.url}/e/${ep}/hello?x=1`, { method: 'POST', body: 'hi' });
      assert.equal(res.status, 200);
      await res.text();
      // Published once the entry is written: the first write also starts the history worker (up to
      // a second or two on a loaded machine), so the wait is generous; arriving at all is the point.
      const got = await c.next('request.created', 5000);
      assert.equal(got.data.path, '/hello?x=1');
      assert.equal(got.data.method, 'POST');
      // The same summary shape as the history list: ISO time, rule object, no bodies.
      assert.match(got.data.date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(got.data.createdAt, got.data.date);
      assert.deepEqual(got.data.rule, { matched: false });
      assert.equal(got.data.requestBody, undefined);
      app.ctx.events.publish({ endpoint: ep, name: 'rules.deleted', data: { count: 0 } });
      await c.next('rules.deleted');
      assert.deepEqual(o.events, []);
    } finally {
      c.close();
      o.close();
    }
  });

  void test('requests.deleted reaches the stream after a history delete', async () => {
    const ep = await newEndpoint(app, 'sse');
    const c = await connect(eventsUrl(ep), adminAuth);
    try {
      const res = await fetch(`${app.url}/api/v2/endpoints/${ep}/requests`, {
        method: 'DELETE',
        headers: adminAuth,
      });
      assert.equal(res.status, 200);
      const got = await c.next('requests.deleted');
      assert.deepEqual(got.data, { count: 0 });
    } finally {
      c.close();
    }
  });

  void test('a client that goes away is unsubscribed', async () => {
    const ep = await newEndpoint(app, 'sse');
    // The streams of the tests above were closed: none may still be subscribed.
    await until(() => bus.active === 0);
    assert.equal(bus.isListening(ep), false);
    const c = await connect(eventsUrl(ep), adminAuth);
    await until(() => bus.active === 1);
    assert.equal(bus.isListening(ep), true, 'publishers build events for this endpoint again');
    c.close();
    await until(() => bus.active === 0);
    assert.equal(bus.isListening(ep), false, 'and skip them once nobody listens');
  });
});

void describe('authentication', () => {
  void test('?access_token= is accepted in place of the header', async () => {
    const ep = await newEndpoint(app, 'sse');
    const c = await connect(eventsUrl(ep, `?access_token=${ADMIN_KEY}`));
    try {
      assert.equal(c.res.statusCode, 200);
      app.ctx.events.publish({ endpoint: ep, name: 'rule.deleted', data: { id: 'x' } });
      await c.next('rule.deleted');
    } finally {
      c.close();
    }
  });

  void test('a scoped key works on its endpoint, with the header or the token', async () => {
    const ep = await newEndpoint(app, 'sse');
    const { key } = await createKey(app.ctx.store, ep);
    for (const c of [
      await connect(eventsUrl(ep), { authorization: key }),
      await connect(eventsUrl(ep, `?access_token=${key}`)),
    ]) {
      assert.equal(c.res.statusCode, 200);
      c.close();
    }
  });

  for (const [name, query, headers, status, code] of [
    ['no key', '', {}, 401, 'missing_authentication'],
    ['an unknown token', '?access_token=mb_nope', {}, 401, 'unauthorized_api_key'],
    ['an unknown header key', '', { authorization: 'Bearer mb_nope' }, 401, 'unauthorized_api_key'],
    ['an unknown query parameter', '?since=1', adminAuth, 400, 'validation_error'],
  ] as const) {
    void test(`${name}: ${status} ${code}`, async () => {
      const ep = await newEndpoint(app, 'sse');
      const c = await connect(eventsUrl(ep, query), headers);
      assert.equal(c.res.statusCode, status);
      assert.match(String(c.res.headers['content-type']), /^application\/json/);
      assert.equal((await whole(c)).error.code, code);
    });
  }

  void test('a key scoped to another endpoint: 403; an unknown endpoint: 404', async () => {
    const ep = await newEndpoint(app, 'sse');
    const other = await newEndpoint(app, 'sse');
    const { key } = await createKey(app.ctx.store, other);
    const forbidden = await connect(eventsUrl(ep, `?access_token=${key}`));
    assert.equal(forbidden.res.statusCode, 403);
    assert.equal((await whole(forbidden)).error.code, 'forbidden');
    const missing = await connect(eventsUrl('no-such-endpoint'), adminAuth);
    assert.equal(missing.res.statusCode, 404);
    assert.equal((await whole(missing)).error.code, 'not_found');
  });
});

void test('closing the server ends open streams instead of waiting for them', async () => {
  const own = await startApp({}, { listen: true });
  const ep = await newEndpoint(own, 'sse');
  const c = await connect(`${own.url}/api/v2/endpoints/${ep}/events`, adminAuth);
  assert.equal(c.res.statusCode, 200);
  const stopped = own.stop().then(() => 'closed' as const);
  const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 3000).unref());
  const winner = await Promise.race([stopped, timeout]);
  if (winner === 'timeout') {
    // Let the server finish anyway, so that the failure is reported instead of hanging the run.
    c.close();
    await stopped;
  }
  assert.equal(winner, 'closed', 'close waited for the open stream');
  await c.ended;
});
