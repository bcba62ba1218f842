/** Bodies over the capture limit are kept cut in the history, with a flag; shorter ones whole. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp } from '../helpers/app.js';

test('history keeps at most CAPTURE_LIMIT bytes of each body and flags the cut', async () => {
  const app = await startApp({ captureLimit: 1024 });
  try {
    const post = (payload: string) =>
      app.inject({
        method: 'POST',
        url: '/e/echo/cap',
        headers: { 'content-type': 'text/plain' },
        payload,
      });
    assert.equal((await post('é'.repeat(512))).statusCode, 200); // 1024 bytes: at the limit
    assert.equal((await post('a'.repeat(1025))).statusCode, 200); // one byte over
    await app.ctx.history.flush();
    const [over, at] = (await app.ctx.store.listHistory('echo', { path: { substring: '/cap' } }, 10)).data;
    assert.equal(at!.requestBody, 'é'.repeat(512));
    assert.equal(at!.requestBodyTruncated, false);
    assert.equal(over!.requestBody, 'a'.repeat(1024));
    assert.equal(over!.requestBodyTruncated, true);
    // The echo answer repeats the body, so it is over the limit too: cut, flagged, still the start of the JSON.
    assert.equal(over!.responseBodyTruncated, true);
    assert.equal(Buffer.byteLength(over!.responseBody), 1024);
    assert.ok(over!.responseBody.startsWith('{"method":"POST"'));
  } finally {
    await app.stop();
  }
});
