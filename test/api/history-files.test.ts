/** GET …/requests/:id/files/:fieldName: an uploaded file comes back as sent, and goes with its entry. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { adminAuth, startApp, type TestApp } from '../helpers/app.js';
import { api, entry, newEndpoint } from '../helpers/history-fixtures.js';

let app: TestApp;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app.stop();
});

const BOUNDARY = 'mbtestboundary';

/** Sends a multipart request with one text field and one file to the endpoint; returns the entry id. */
async function upload(ep: string, fileName: string, type: string, content: string): Promise<string> {
  const body =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="doc"; filename="${fileName}"\r\n` +
    `Content-Type: ${type}\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`;
  const res = await app.inject({
    method: 'POST',
    url: `/e/${ep}/upload`,
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload: Buffer.from(body, 'utf8'),
  });
  assert.equal(res.statusCode, 200);
  await app.ctx.history.flush();
  const list = await api(app, 'GET', `/endpoints/${ep}/requests?path=upload&limit=1`);
  return list.body.data[0].id as string;
}

async function download(ep: string, id: string, field: string) {
  return app.inject({
    method: 'GET',
    url: `/api/v2/endpoints/${ep}/requests/${id}/files/${field}`,
    headers: adminAuth,
  });
}

void test('the file comes back with its bytes, original Content-Type and file name', async () => {
  const ep = await newEndpoint(app, 'files');
  const id = await upload(ep, 'report.csv', 'text/csv', 'a,b\n1,2\n');
  const meta = await api(app, 'GET', `/endpoints/${ep}/requests/${id}`);
  assert.deepEqual(meta.body.files, [
    { name: 'doc', fileName: 'report.csv', contentType: 'text/csv', size: 8 },
  ]);

  const res = await download(ep, id, 'doc');
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'text/csv');
  assert.match(String(res.headers['content-disposition']), /^attachment; filename="report\.csv"/);
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  assert.equal(res.body, 'a,b\n1,2\n');
});

void test('a non-ASCII or quoted file name is kept exactly in filename* and made safe in filename', async () => {
  const ep = await newEndpoint(app, 'files');
  const e = entry(ep, {}, [
    {
      fieldName: 'pic',
      fileName: 'été "(1)".png',
      contentType: 'image/png',
      size: 3,
      data: Buffer.from([1, 2, 3]),
    },
  ]);
  await app.ctx.store.insertHistory([e]);
  const res = await download(ep, e.entry.id, 'pic');
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'image/png');
  assert.equal(
    res.headers['content-disposition'],
    `attachment; filename="_t_ _(1)_.png"; filename*=UTF-8''%C3%A9t%C3%A9%20%22%281%29%22.png`,
  );
  assert.deepEqual([...res.rawPayload], [1, 2, 3]);
});

void test('a stored Content-Type that is not a plain media type is served as a byte stream', async () => {
  const ep = await newEndpoint(app, 'files');
  const e = entry(ep, {}, [
    { fieldName: 'f', fileName: 'x', contentType: 'text/html\u0000evil', size: 1, data: Buffer.from('x') },
  ]);
  await app.ctx.store.insertHistory([e]);
  const res = await download(ep, e.entry.id, 'f');
  assert.equal(res.headers['content-type'], 'application/octet-stream');
});

void test('an unknown field or entry: 404 not_found', async () => {
  const ep = await newEndpoint(app, 'files');
  const id = await upload(ep, 'a.txt', 'text/plain', 'x');
  for (const [rid, field] of [
    [id, 'nope'],
    [id, 'note'], // a text field is not a file
    ['00000000-0000-0000-0000-000000000000', 'doc'],
  ]) {
    const res = await download(ep, rid!, field!);
    assert.equal(res.statusCode, 404, `${rid} ${field}`);
    assert.equal(res.json().error.code, 'not_found');
  }
});

void test('deleting with filters removes the files: the download then answers 404', async () => {
  const ep = await newEndpoint(app, 'files');
  const id = await upload(ep, 'a.txt', 'text/plain', 'first');
  const keep = await upload(ep, 'b.txt', 'text/plain', 'second');
  assert.equal((await download(ep, id, 'doc')).statusCode, 200);
  const del = await api(app, 'DELETE', `/endpoints/${ep}/requests?requestBody=first`);
  assert.deepEqual(del.body, { deleted: true, count: 1 });
  assert.equal((await download(ep, id, 'doc')).statusCode, 404);
  assert.equal((await download(ep, keep, 'doc')).body, 'second');
  // Nothing of the deleted entry is left in the files table either.
  assert.equal(await app.ctx.store.getHistoryFile(ep, id, 'doc'), undefined);
});

void test('deleting one entry removes its files', async () => {
  const ep = await newEndpoint(app, 'files');
  const id = await upload(ep, 'a.txt', 'text/plain', 'only');
  const del = await api(app, 'DELETE', `/endpoints/${ep}/requests/${id}`);
  assert.deepEqual(del.body, { id, deleted: true });
  assert.equal((await download(ep, id, 'doc')).statusCode, 404);
});
