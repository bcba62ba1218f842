/**
 * Event ids and Last-Event-ID on one instance (the in-memory bus), over a real socket: a dashboard
 * that reconnects gets what it missed exactly once, or one `reset` when that is not known; a bad
 * Last-Event-ID is refused; a closing server ends streams with a `retry:` line.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { adminAuth, startApp, type TestApp } from '../helpers/app.js';
import { newEndpoint } from '../helpers/history-fixtures.js';
import { openStream } from '../helpers/sse-client.js';
import { until } from '../helpers/until.js';

let app: TestApp;
before(async () => {
  app = await startApp({}, { listen: true });
});
after(async () => {
  await app.stop();
});

const eventsUrl = (ep: string) => `${app.url}/api/v2/endpoints/${ep}/events`;
const rule = (ep: string, id: string) =>
  app.ctx.events.publish({ endpoint: ep, name: 'rule.deleted', data: { id } });

void test('every event has an id; a dashboard that reconnects gets what it missed once, then the live ones', async () => {
  const ep = await newEndpoint(app, 'resume');
  const other = await openStream(eventsUrl(ep), adminAuth); // a second tab stays: the events are kept
  const first = await openStream(eventsUrl(ep), adminAuth);
  try {
    await until(() => app.ctx.events.isListening(ep) && first.text().length > 0);
    rule(ep, 'a');
    rule(ep, 'b');
    const b = (await first.next('rule.deleted'), await first.next('rule.deleted'));
    assert.match(b.id!, /^\d+-\d+$/);
    assert.match(
      first.text(),
      new RegExp(`id: ${b.id}\\nevent: rule\\.deleted\\ndata: \\{"id":"b"\\}\\n\\n`),
    );
    first.close();
    await first.ended;
    rule(ep, 'c');
    rule(ep, 'd');
    await until(() => other.events.length === 4);
    const again = await openStream(eventsUrl(ep), { ...adminAuth, 'last-event-id': first.lastId()! });
    try {
      assert.equal(again.status, 200);
      assert.deepEqual([(await again.next()).data, (await again.next()).data], [{ id: 'c' }, { id: 'd' }]);
      rule(ep, 'e');
      assert.deepEqual((await again.next()).data, { id: 'e' });
      await until(() => other.events.length === 5);
      assert.deepEqual(
        again.events.map((e) => e.id),
        other.events.slice(2).map((e) => e.id),
        'the same ids as the tab that stayed, each once',
      );
    } finally {
      again.close();
    }
  } finally {
    other.close();
    first.close();
  }
});

void test('a Last-Event-ID this server cannot resume from gets one reset, with an id to resume from', async () => {
  const ep = await newEndpoint(app, 'resume');
  const c = await openStream(eventsUrl(ep), { ...adminAuth, 'last-event-id': '12-34' });
  try {
    assert.equal(c.status, 200);
    const reset = await c.next('reset');
    assert.match(reset.id!, /^\d+-\d+$/);
    assert.equal(typeof reset.data.reason, 'string');
    rule(ep, 'after');
    assert.deepEqual((await c.next('rule.deleted')).data, { id: 'after' });
    assert.equal(c.events.filter((e) => e.event === 'reset').length, 1);
  } finally {
    c.close();
  }
});

for (const bad of ['abc', '1-2-3', '12', `${'9'.repeat(21)}-0`]) {
  void test(`Last-Event-ID ${JSON.stringify(bad.slice(0, 12))}: 400 validation_error`, async () => {
    const ep = await newEndpoint(app, 'resume');
    const c = await openStream(eventsUrl(ep), { ...adminAuth, 'last-event-id': bad });
    await c.ended;
    assert.equal(c.status, 400);
    assert.equal((JSON.parse(c.text()) as { error: { code: string } }).error.code, 'validation_error');
  });
}

void test('an empty Last-Event-ID is no Last-Event-ID', async () => {
  const ep = await newEndpoint(app, 'resume');
  const c = await openStream(eventsUrl(ep), { ...adminAuth, 'last-event-id': '' });
  try {
    assert.equal(c.status, 200);
    await until(() => c.text().length > 0);
    rule(ep, 'x');
    assert.equal((await c.next()).event, 'rule.deleted');
  } finally {
    c.close();
  }
});

void test('a closing server ends its streams with a retry: line, for browsers to come back at once', async () => {
  const own = await startApp({}, { listen: true });
  const ep = await newEndpoint(own, 'resume');
  const c = await openStream(`${own.url}/api/v2/endpoints/${ep}/events`, adminAuth);
  await until(() => c.text().length > 0);
  await own.stop();
  await c.ended;
  assert.match(c.text(), /retry: 1000\n\n$/);
});
