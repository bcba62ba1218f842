/**
 * gRPC calls in the history (SPEC §13): an entry built by grpcEntry, written by the history writer
 * and read through the API in its brief and verbose shapes, `?behavior=grpc`, the live summary, and
 * the message caps (a count and the capture limit) at their edges. The API part runs on SQLite and,
 * with DATABASE_URL, on PostgreSQL.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startApp, type TestApp } from '../helpers/app.js';
import { freshPgDatabase, pgSkip, suiteOrSkip } from '../helpers/pg.js';
import { allIds, api, entry, newEndpoint } from '../helpers/history-fixtures.js';
import {
  GRPC_HISTORY_MAX_MESSAGES,
  grpcEntry,
  GrpcMessageLog,
  sensitiveHeaders,
  type GrpcCallSummary,
} from '../../src/history/index.js';
import { historyRecord } from '../../src/api/index.js';

/** A finished unary call to user.UserService/GetUser; `over` sets what the test is about. */
function call(endpoint: string, over: Partial<GrpcCallSummary> = {}): GrpcCallSummary {
  const now = Date.now();
  return {
    id: randomUUID(),
    endpoint,
    receivedAt: now - 5,
    ip: '127.0.0.1',
    path: '/user.UserService/GetUser',
    httpVersion: '2',
    metadata: {
      'x-tenant': 'acme',
      authorization: 'Bearer secret-token',
      'content-type': 'application/grpc',
    },
    responseHeaders: { 'content-type': 'application/grpc', 'x-trace': 't1', 'grpc-status': '5' },
    service: 'user.UserService',
    method: 'GetUser',
    callType: 'unary',
    status: 5,
    statusMessage: 'no such user',
    ruleId: 'rule-1',
    requestMessages: [{ id: '7' }],
    responseMessages: [],
    captureLimit: 1024 * 1024,
    now,
    redact: sensitiveHeaders({ keepSensitiveHeaders: false, redactHeaders: [] }),
    ...over,
  };
}

interface Direction {
  messages: unknown[];
  truncated: boolean;
}
interface VerboseEntry {
  request: Direction;
  response: Direction;
  requestBodyTruncated: boolean;
}

function historyApi(name: string, start: () => Promise<{ app: TestApp; stop: () => Promise<void> }>) {
  const endpointOf = new Map<string, string>();
  let app: TestApp;
  let stop: () => Promise<void>;
  before(async () => {
    ({ app, stop } = await start());
  });
  after(async () => {
    await stop?.();
  });

  async function verbose(id: string): Promise<VerboseEntry> {
    const res = await api(app, 'GET', `/endpoints/${endpointOf.get(id)}/requests/${id}`);
    assert.equal(res.status, 200);
    return res.body as VerboseEntry;
  }

  async function written(...calls: GrpcCallSummary[]): Promise<void> {
    for (const c of calls) {
      endpointOf.set(c.id, c.endpoint);
      app.ctx.history.record(grpcEntry(c));
    }
    await app.ctx.history.flush();
  }

  void test(`${name}: the brief entry names the call and how it ended, without messages`, async () => {
    const ep = await newEndpoint(app, 'grpc');
    const c = call(ep);
    await written(c);
    const list = await api(app, 'GET', `/endpoints/${ep}/requests`);
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 1);
    const e = list.body.data[0];
    assert.equal(e.id, c.id);
    assert.equal(e.behavior, 'grpc');
    assert.equal(e.method, 'POST');
    assert.equal(e.path, '/user.UserService/GetUser');
    assert.equal(e.status, 200);
    assert.deepEqual(e.rule, { matched: true, ruleId: 'rule-1' });
    assert.deepEqual(e.grpc, {
      service: 'user.UserService',
      method: 'GetUser',
      callType: 'unary',
      status: 5,
      statusMessage: 'no such user',
    });
    assert.equal(e.timeTaken, 5);
    assert.equal(e.request, undefined);
    assert.equal(e.response, undefined);
  });

  void test(`${name}: the verbose entry has each direction's messages, metadata redacted`, async () => {
    const ep = await newEndpoint(app, 'grpc');
    const c = call(ep, {
      callType: 'bidirectional_streaming',
      status: 0,
      statusMessage: '',
      ruleId: null,
      requestMessages: [{ id: '1' }, { id: '2', tags: ['a', 'é'] }],
      responseMessages: [{ name: 'Ann' }, { name: 'Bob' }, {}],
    });
    await written(c);
    for (const url of [`/endpoints/${ep}/requests/${c.id}`, `/endpoints/${ep}/requests?mode=verbose`]) {
      const res = await api(app, 'GET', url);
      assert.equal(res.status, 200);
      const e = url.includes('mode=') ? res.body.data[0] : res.body;
      assert.deepEqual(e.rule, { matched: false });
      assert.equal(e.grpc.callType, 'bidirectional_streaming');
      assert.equal(e.grpc.statusMessage, '');
      assert.deepEqual(e.request.messages, [{ id: '1' }, { id: '2', tags: ['a', 'é'] }]);
      assert.equal(e.request.truncated, false);
      assert.deepEqual(e.response.messages, [{ name: 'Ann' }, { name: 'Bob' }, {}]);
      assert.equal(e.response.truncated, false);
      assert.equal(e.request.httpVersion, '2');
      assert.equal(e.request.headers['x-tenant'], 'acme');
      assert.notEqual(e.request.headers['authorization'], 'Bearer secret-token');
      assert.equal(e.response.headers['x-trace'], 't1');
      // The bodies are the messages' JSON, so that the body filters find them.
      assert.deepEqual(JSON.parse(e.request.body), e.request.messages);
    }
    assert.deepEqual(await allIds(app, ep, 'requestBody=Ann'), []);
    assert.deepEqual(await allIds(app, ep, 'responseBody=Ann'), [c.id]);
  });

  void test(`${name}: a call without messages keeps none`, async () => {
    const ep = await newEndpoint(app, 'grpc');
    const c = call(ep, { requestMessages: [], responseMessages: [] });
    await written(c);
    const e = (await api(app, 'GET', `/endpoints/${ep}/requests/${c.id}`)).body;
    assert.deepEqual(e.request.messages, []);
    assert.deepEqual(e.response.messages, []);
    assert.equal(e.request.truncated, false);
  });

  void test(`${name}: ?behavior=grpc matches gRPC entries only; an HTTP entry has no grpc fields`, async () => {
    const ep = await newEndpoint(app, 'grpc');
    const c = call(ep);
    await app.ctx.store.insertHistory([
      entry(ep, { behavior: 'mock-rule', path: '/user.UserService/GetUser' }),
    ]);
    await written(c);
    assert.deepEqual(await allIds(app, ep, 'behavior=grpc'), [c.id]);
    assert.equal((await allIds(app, ep, 'behavior=mock-rule')).length, 1);
    for (const b of ['wsdl', 'graphql']) assert.deepEqual(await allIds(app, ep, `behavior=${b}`), []);
    const http = (await api(app, 'GET', `/endpoints/${ep}/requests?behavior=mock-rule&mode=verbose`)).body
      .data[0];
    assert.equal(http.grpc, undefined);
    assert.equal(http.request.messages, undefined);
    assert.equal(http.response.truncated, undefined);
  });

  void test(`${name}: ${GRPC_HISTORY_MAX_MESSAGES} messages are kept, the next ones cut`, async () => {
    const ep = await newEndpoint(app, 'grpc');
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ i }));
    const calls = [
      GRPC_HISTORY_MAX_MESSAGES - 1,
      GRPC_HISTORY_MAX_MESSAGES,
      GRPC_HISTORY_MAX_MESSAGES + 1,
    ].map((n) => call(ep, { requestMessages: many(n), responseMessages: many(n) }));
    await written(...calls);
    const got = await Promise.all(calls.map((c) => verbose(c.id)));
    assert.deepEqual(
      got.map((e) => [
        e.request.messages.length,
        e.request.truncated,
        e.response.messages.length,
        e.response.truncated,
      ]),
      [
        [GRPC_HISTORY_MAX_MESSAGES - 1, false, GRPC_HISTORY_MAX_MESSAGES - 1, false],
        [GRPC_HISTORY_MAX_MESSAGES, false, GRPC_HISTORY_MAX_MESSAGES, false],
        [GRPC_HISTORY_MAX_MESSAGES, true, GRPC_HISTORY_MAX_MESSAGES, true],
      ],
    );
    assert.deepEqual(got[2]!.request.messages.at(-1), { i: GRPC_HISTORY_MAX_MESSAGES - 1 });
    // The flags are the body flags of every entry too.
    assert.equal(got[2]!.requestBodyTruncated, true);
    assert.equal(got[1]!.requestBodyTruncated, false);
  });

  void test(`${name}: messages over the capture limit are cut, whole, the first ones kept`, async () => {
    const ep = await newEndpoint(app, 'grpc');
    // `{"s":"xxxx"}` is 12 bytes; two with their comma 25.
    const m = { s: 'xxxx' };
    const limits = [24, 25, 26];
    const calls = limits.map((captureLimit) =>
      call(ep, { captureLimit, requestMessages: [m, m, m], responseMessages: [m, m] }),
    );
    await written(...calls);
    const got = await Promise.all(calls.map((c) => verbose(c.id)));
    assert.deepEqual(
      got.map((e) => [
        e.request.messages.length,
        e.request.truncated,
        e.response.messages.length,
        e.response.truncated,
      ]),
      [
        [1, true, 1, true],
        [2, true, 2, false],
        [2, true, 2, false],
      ],
    );
  });
}

void describe('gRPC history on SQLite', () => {
  historyApi('sqlite', async () => {
    const app = await startApp();
    return { app, stop: () => app.stop() };
  });
});

suiteOrSkip('gRPC history on PostgreSQL', pgSkip, () => {
  historyApi('postgres', async () => {
    const db = await freshPgDatabase();
    const app = await startApp({ databaseUrl: db.url });
    return {
      app,
      stop: async () => {
        await app.stop();
        await db.drop();
      },
    };
  });
});

void describe('GrpcMessageLog', () => {
  void test('keeps the first messages whole: one that does not fit ends the log, later small ones too', () => {
    const log = new GrpcMessageLog(20, 10);
    log.add({ a: 1 }); // 7 bytes
    log.add({ big: 'x'.repeat(20) });
    log.add({ b: 2 });
    assert.equal(log.count, 1);
    assert.equal(log.truncated, true);
    assert.equal(log.text(), '[{"a":1}]');
  });

  void test('counts UTF-8 bytes, not characters', () => {
    const log = new GrpcMessageLog(8);
    log.add('éé'); // "éé": 6 bytes
    log.add('é'); // ,"é": 5 more
    assert.equal(log.count, 1);
    assert.equal(log.truncated, true);
  });

  void test('a value that is not JSON is not kept, and cuts the log', () => {
    const log = new GrpcMessageLog(1000);
    log.add({ ok: true });
    log.add({ n: 1n });
    log.add({ ok: false });
    assert.equal(log.text(), '[{"ok":true}]');
    assert.equal(log.truncated, true);
  });

  void test('a capture limit of 0 keeps no message; an empty log is []', () => {
    const empty = new GrpcMessageLog(0);
    assert.equal(empty.text(), '[]');
    assert.equal(empty.truncated, false);
    empty.add({});
    assert.equal(empty.text(), '[]');
    assert.equal(empty.truncated, true);
  });

  void test('a log filled while the call ran is taken as it is', () => {
    const log = new GrpcMessageLog(1000, 2);
    for (let i = 0; i < 5; i++) log.add({ i });
    const e = grpcEntry(call('ep', { requestMessages: log })).entry;
    assert.equal(e.requestBody, '[{"i":0},{"i":1}]');
    assert.equal(e.requestBodyTruncated, true);
  });
});

void test('the live summary (request.created) carries the grpc object, not the messages', () => {
  const summary = historyRecord(
    { ...grpcEntry(call('ep', { responseMessages: [{ a: 1 }] })).entry, createdAt: 0 },
    false,
  );
  assert.equal(summary.behavior, 'grpc');
  assert.equal(summary.grpc?.method, 'GetUser');
  assert.equal(summary.request, undefined);
});
