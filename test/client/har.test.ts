/** The typed client's HAR methods: importHar (and its preview), exportHar and exportNdjson, on a real socket. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Mockingbird } from '../../src/client/index.js';
import { ADMIN_KEY } from '../helpers/app.js';
import { useApp } from '../helpers/endpoint.js';

test('importHar, then exportHar and exportNdjson of the requests the rules answered', async (t) => {
  const app = await useApp(t, { historyExportMax: 50 }, { listen: true });
  const mb = new Mockingbird({ baseUrl: app.url, apiKey: ADMIN_KEY });
  await mb.createEndpoint('client-har');
  const ep = mb.endpoint('client-har');
  const entry = (path: string, body: string) => ({
    startedDateTime: '2026-05-15T02:46:30.123Z',
    time: 1,
    request: {
      method: 'GET',
      url: `https://x.test${path}`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      content: { size: body.length, mimeType: 'text/plain', text: body },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  });
  const har = {
    log: {
      version: '1.2',
      creator: { name: 't', version: '1' },
      entries: [entry('/a', 'A'), entry('/b', 'B')],
    },
  };
  const preview = await ep.importHar(har, { preview: true });
  assert.equal(preview.created, 0);
  assert.equal(preview.rules.length, 2);
  const done = await ep.importHar(har, { headers: ['x-any'] });
  assert.equal(done.created, 2);
  for (const p of ['/a', '/b', '/a'])
    assert.equal(await (await fetch(`${app.url}/e/client-har${p}`)).text(), p === '/b' ? 'B' : 'A');

  const exported = await ep.exportHar({ limit: 2 });
  assert.equal(exported.log.version, '1.2');
  assert.deepEqual(
    exported.log.entries.map((e) => e.response.content.text),
    ['A', 'B'],
  );
  assert.match(exported.log.comment ?? '', /cursor=/);
  const lines = [];
  for await (const e of ep.exportNdjson({ path: '/a' })) lines.push(e);
  assert.equal(lines.length, 2);
  assert.equal(lines[0]!.response?.body, 'A');
});
