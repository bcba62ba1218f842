/**
 * Conformance: the live event stream. A dashboard-like client connects with `?access_token=` (as a
 * browser's EventSource must) and with the header; every change made through the API arrives under the
 * contract's event name, with JSON data (`rule.deleted` carries `{ "id" }`).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { assertSchema, conforms, send } from './conformance.js';
import { EVENT_NAMES } from './schemas.js';

interface Received {
  event: string;
  data: unknown;
}

/** Opens the stream; resolves once the answer's head has arrived. */
function listen(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ res: http.IncomingMessage; events: Received[]; close: () => void }>(
    (resolve, reject) => {
      const req = http.get(url, { headers }, (res) => {
        const events: Received[] = [];
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let i;
          while ((i = buf.indexOf('\n\n')) !== -1) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const name = /^event: ?(.*)$/m.exec(block);
            const data = /^data: ?(.*)$/m.exec(block);
            if (name && data) events.push({ event: name[1]!, data: JSON.parse(data[1]!) as unknown });
          }
        });
        resolve({ res, events, close: () => req.destroy() });
      });
      req.on('error', reject);
    },
  );
}

async function waitFor(events: Received[], name: string): Promise<Received> {
  const end = Date.now() + 3000;
  for (;;) {
    const e = events.find((x) => x.event === name);
    if (e) return e;
    if (Date.now() > end) throw new Error(`no ${name} event; got ${events.map((x) => x.event).join(', ')}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let app: TestApp;
before(async () => {
  app = await startApp({}, { listen: true });
  conforms('POST /api/v2/endpoints', await send(app, 'POST', '/api/v2/endpoints', { name: 'shop' }));
});
after(async () => {
  await app.stop();
});

test('every API change arrives under its event name with JSON data', async () => {
  const s = await listen(`${app.url}/api/v2/endpoints/shop/events?access_token=${ADMIN_KEY}`);
  try {
    assert.equal(s.res.statusCode, 200);
    assert.match(String(s.res.headers['content-type']), /^text\/event-stream/);
    const R = '/api/v2/endpoints/shop/rules';
    const rule = {
      conditions: [{ type: 'path', operator: 'equals', value: '/x' }],
      action: { type: 'mock' },
    };
    const id = conforms('POST /api/v2/endpoints/:ep/rules', await send(app, 'POST', R, rule)).id as string;
    await waitFor(s.events, 'rule.created');
    conforms(
      'PATCH /api/v2/endpoints/:ep/rules/:ruleId',
      await send(app, 'PATCH', `${R}/${id}`, { description: 'changed' }),
    );
    await waitFor(s.events, 'rule.updated');
    const id2 = conforms('POST /api/v2/endpoints/:ep/rules', await send(app, 'POST', R, rule)).id as string;
    conforms(
      'POST /api/v2/endpoints/:ep/rules/reorder',
      await send(app, 'POST', `${R}/reorder`, { order: [id2] }),
    );
    await waitFor(s.events, 'rules.reordered');
    conforms('DELETE /api/v2/endpoints/:ep/rules/:ruleId', await send(app, 'DELETE', `${R}/${id}`));
    const deleted = await waitFor(s.events, 'rule.deleted');
    assertSchema('RuleDeletedEvent', deleted.data, 'the rule.deleted event');
    assert.deepEqual((deleted.data as { id: string }).id, id);
    conforms('DELETE /api/v2/endpoints/:ep/rules', await send(app, 'DELETE', R));
    await waitFor(s.events, 'rules.deleted');
    // Settings and history answers have their own files; here only the events matter.
    const patched = await send(app, 'PATCH', '/api/v2/endpoints/shop/settings', { localTunnel: false });
    assert.equal(patched.status, 200, patched.text);
    await waitFor(s.events, 'settings.updated');
    const hit = await fetch(`${app.url}/e/shop/hello`);
    await hit.text();
    await waitFor(s.events, 'request.created');
    const purged = await send(app, 'DELETE', '/api/v2/endpoints/shop/requests');
    assert.equal(purged.status, 200, purged.text);
    await waitFor(s.events, 'requests.deleted');
    for (const e of s.events) {
      assert.ok((EVENT_NAMES as readonly string[]).includes(e.event), `unknown event name ${e.event}`);
      assert.equal(typeof e.data, 'object', `${e.event} data is JSON`);
    }
  } finally {
    s.close();
  }
});

test('the key in the Authorization header opens the stream too; no key is 401', async () => {
  const s = await listen(`${app.url}/api/v2/endpoints/shop/events`, { authorization: ADMIN_KEY });
  assert.equal(s.res.statusCode, 200);
  s.close();
  const n = await listen(`${app.url}/api/v2/endpoints/shop/events`);
  assert.equal(n.res.statusCode, 401);
  n.close();
});
