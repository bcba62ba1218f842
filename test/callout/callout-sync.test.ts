/**
 * Sync callouts (SPEC §4): the request (or, with `transform: custom`, the callout's own templated body
 * and headers) goes to `callout.url` with `callout.method` (`*`: the request's), and the target's
 * whole response is the answer; recorded as `callout` with the callout's request and response, and a
 * forwarded multipart file downloadable with `component=CalloutRequest`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../helpers/api-helpers.js';
import { rawValues, send, upstream } from '../proxy/proxy-helpers.js';
import { calloutApp, calloutRule, entries } from './callout-helpers.js';

test('sync forward: the request goes to url with its method, body and headers; the target answers', async () => {
  const up = await upstream((_req, res) => {
    res.writeHead(201, { 'content-type': 'application/json', 'x-up': 'yes' });
    res.end('{"from":"target"}');
  });
  const app = await calloutApp();
  try {
    await calloutRule(app, '/orders', { behavior: 'sync', callout: { url: `${up.url}/hook?x=1` } });
    const res = await send(`${app.endpointUrl}/orders?q=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-client': 'c1', authorization: 'Bearer secret' },
      body: '{"id":7}',
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers['x-up'], 'yes');
    assert.equal(res.text, '{"from":"target"}');

    const [seen] = up.seen;
    assert.equal(seen?.method, 'POST');
    assert.equal(seen?.url, '/hook?x=1', 'the url as written; the request path is not appended');
    assert.equal(seen?.body.toString(), '{"id":7}');
    assert.equal(seen?.headers['x-client'], 'c1');
    assert.equal(seen?.headers['host'], `127.0.0.1:${up.port}`);
    assert.equal(rawValues(seen?.rawHeaders ?? [], 'x-mockingbird-hop').length, 1);

    const [entry] = await entries(app);
    assert.equal(entry?.behavior, 'callout');
    assert.equal(entry?.status, 201);
    assert.equal(entry?.responseBody, '{"from":"target"}');
    const c = entry?.callout;
    assert.equal(c?.behavior, 'sync');
    assert.equal(c?.state, 'done');
    assert.equal(c?.request.method, 'POST');
    assert.equal(c?.request.url, `${up.url}/hook?x=1`);
    assert.equal(c?.request.body, '{"id":7}');
    assert.equal(c?.request.headers['authorization'], 'Bearer [REDACTED]', 'sensitive headers redacted');
    assert.equal(c?.response?.status, 201);

    // The verbose entry shows the callout's request and response, the response body included.
    const api = await call(app, 'GET', `/endpoints/shop/requests/${entry.id}`);
    assert.equal(api.status, 200, api.text);
    assert.equal(api.body.callout.request.url, `${up.url}/hook?x=1`);
    assert.equal(api.body.callout.response.status, 201);
    assert.equal(api.body.callout.response.body, '{"from":"target"}');
    assert.equal(api.body.callout.response.headers['x-up'], 'yes');
    const summary = await call(app, 'GET', '/endpoints/shop/requests');
    assert.equal(summary.body.data[0].callout, undefined, 'the summary leaves it out');
  } finally {
    await app.stop();
    await up.close();
  }
});

test('sync custom: method PUT, the templated body and headers of the callout; * is the request method', async () => {
  const up = await upstream((_req, res) => res.end('ok'));
  const app = await calloutApp();
  try {
    await calloutRule(app, '/custom', {
      behavior: 'sync',
      callout: {
        url: `${up.url}/c`,
        method: 'PUT',
        transform: 'custom',
        templated: true,
        headers: [
          { key: 'X-Order', value: "{{body 'id'}}" },
          { key: 'Host', value: 'evil.example' },
        ],
        body: `{"order":"{{body 'id'}}","m":"{{method}}"}`,
      },
    });
    await calloutRule(app, '/star', { behavior: 'sync', callout: { url: `${up.url}/s`, method: '*' } });
    const res = await send(`${app.endpointUrl}/custom`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-client': 'not-sent' },
      body: '{"id":"A7"}',
    });
    assert.equal(res.status, 200);
    assert.equal(res.text, 'ok');
    const seen = up.seen[0]!;
    assert.equal(seen.method, 'PUT');
    assert.equal(seen.body.toString(), '{"order":"A7","m":"POST"}');
    assert.equal(seen.headers['x-order'], 'A7');
    assert.equal(seen.headers['x-client'], undefined, 'custom sends only its own headers');
    assert.equal(seen.headers['host'], `127.0.0.1:${up.port}`, 'Host is not the callout’s to set');
    assert.match(String(seen.headers['content-type']), /application\/json/);
    const [entry] = await entries(app);
    assert.equal(entry?.callout?.request.method, 'PUT');
    assert.equal(entry?.callout?.request.body, '{"order":"A7","m":"POST"}');
    assert.match(entry?.problems.join(' ') ?? '', /"host" was left out/);

    await send(`${app.endpointUrl}/star`, { method: 'DELETE' });
    assert.equal(up.seen[1]?.method, 'DELETE');
  } finally {
    await app.stop();
    await up.close();
  }
});

test('a multipart file a callout forwards is downloadable with component=CalloutRequest', async () => {
  const up = await upstream((_req, res) => res.end('got it'));
  const app = await calloutApp();
  try {
    await calloutRule(app, '/upload', { behavior: 'sync', callout: { url: `${up.url}/u` } });
    await calloutRule(app, '/own', {
      behavior: 'sync',
      callout: { url: `${up.url}/o`, transform: 'custom', body: 'plain' },
    });
    const boundary = 'XyZ123';
    const multipart = (field: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="note.txt"\r\n` +
      `Content-Type: text/plain\r\n\r\nhello file\r\n--${boundary}--\r\n`;
    const headers = { 'content-type': `multipart/form-data; boundary=${boundary}` };
    const res = await send(`${app.endpointUrl}/upload`, { method: 'POST', headers, body: multipart('doc') });
    assert.equal(res.status, 200);
    assert.match(up.seen[0]!.body.toString(), /hello file/, 'the target received the file');
    const [entry] = await entries(app);
    assert.deepEqual(entry?.callout?.request.files, [
      { name: 'doc', fileName: 'note.txt', contentType: 'text/plain', size: 10 },
    ]);
    const base = `/endpoints/shop/requests/${entry.id}/multipart/download`;
    for (const component of ['CalloutRequest', 'Request']) {
      const file = await call(app, 'GET', `${base}?fieldName=doc&component=${component}`);
      assert.equal(file.status, 200, file.text);
      assert.equal(file.text, 'hello file');
      assert.match(String(file.headers['content-disposition']), /note\.txt/);
    }
    assert.equal((await call(app, 'GET', `${base}?fieldName=doc`)).status, 200, 'Request by default');
    assert.equal((await call(app, 'GET', `${base}?fieldName=nope&component=CalloutRequest`)).status, 404);
    assert.equal((await call(app, 'GET', `${base}?fieldName=doc&component=Other`)).status, 400);
    assert.equal((await call(app, 'GET', `${base}?component=Request`)).status, 400, 'fieldName needed');

    // A custom callout sends its own body, not the request's files.
    await send(`${app.endpointUrl}/own`, { method: 'POST', headers, body: multipart('doc') });
    const [own] = await entries(app);
    const ownBase = `/endpoints/shop/requests/${own!.id}/multipart/download?fieldName=doc`;
    assert.equal((await call(app, 'GET', `${ownBase}&component=CalloutRequest`)).status, 404);
    assert.equal((await call(app, 'GET', `${ownBase}&component=Request`)).status, 200);
  } finally {
    await app.stop();
    await up.close();
  }
});
