/**
 * A HAR recorded by Chromium (test/fixtures/har/README.md) imported into rules that then answer the
 * same requests with the same statuses and bodies; its PNG (binary) is skipped with its reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useApp } from '../helpers/endpoint.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';

interface Entry {
  request: { method: string; url: string; postData?: { text: string; mimeType: string } };
  response: { status: number; content: { text?: string; encoding?: string } };
}
const HAR = JSON.parse(
  readFileSync(new URL('../fixtures/har/chrome-capture.har', import.meta.url), 'utf8'),
) as { log: { browser?: { name: string }; entries: Entry[] } };

test('a Chromium capture imports into rules that answer its requests with the same bodies', async (t) => {
  const app = await useApp(t);
  await createEndpoint(app, 'captured');
  assert.equal(HAR.log.browser?.name, 'chromium');
  const r = await call(app, 'POST', '/endpoints/captured/import/har', HAR);
  assert.equal(r.status, 201, r.text);
  const skipped = r.body.skipped as { index: number; reason: string }[];
  const png = HAR.log.entries.findIndex((e) => e.request.url.endsWith('/logo.png'));
  assert.deepEqual(
    skipped.map((s) => s.index),
    [png],
  );
  assert.match(skipped[0]!.reason, /binary response body/);
  assert.equal(r.body.created, HAR.log.entries.length - 1);

  for (const [i, e] of HAR.log.entries.entries()) {
    if (i === png) continue;
    const url = new URL(e.request.url);
    const res = await app.inject({
      method: e.request.method as 'GET',
      url: `/e/captured${url.pathname}${url.search}`,
      ...(e.request.postData
        ? { payload: e.request.postData.text, headers: { 'content-type': e.request.postData.mimeType } }
        : {}),
    });
    assert.equal(res.statusCode, e.response.status, `${e.request.method} ${url.pathname}`);
    assert.equal(res.body, e.response.content.text ?? '', `${e.request.method} ${url.pathname}`);
  }
  // The gzip-compressed answer is replayed decoded, without its Content-Encoding.
  const notes = await app.inject({ method: 'GET', url: '/e/captured/api/notes' });
  assert.equal(notes.headers['content-encoding'], undefined);
  assert.equal(notes.body, 'Remember the milk.\n');
});
