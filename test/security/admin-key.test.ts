/**
 * Stops: a guessable admin key, and an old admin key that keeps working after the operator changed it
 * (issue 11, item 7). MOCKINGBIRD_API_KEY needs 32 characters and some variety, or the start stops with
 * one clear line; a new value revokes the key the old value registered, keys made through the API stay.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startApp } from '../helpers/app.js';

const varied = (n: number) => 'mb_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0UvWxYz'.repeat(3).slice(0, n);

test('MOCKINGBIRD_API_KEY: 31 characters are refused, 32 accepted; a repetitive or spaced key is refused', () => {
  const load = (key: string) => loadConfig({}, { MOCKINGBIRD_API_KEY: key });
  assert.throws(
    () => load(varied(31)),
    (e: Error) => e instanceof ConfigError && /at least 32 characters \(got 31\)/.test(e.message),
  );
  assert.equal(load(varied(32)).apiKey, varied(32));
  assert.equal(load(varied(33)).apiKey, varied(33));
  assert.throws(() => load('a'), /at least 32 characters/);
  assert.throws(() => load('ab'.repeat(20)), /different characters/);
  assert.throws(() => load(varied(20) + ' ' + varied(20)), /spaces/);
  assert.equal(loadConfig({}, {}).apiKey, undefined);
});

test('a changed MOCKINGBIRD_API_KEY revokes the previous one; keys made through the API stay', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mb-admin-key-'));
  const first = varied(40);
  const second = 'mb_Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa';
  try {
    const a = await startApp({ dataDir, apiKey: first });
    const made = await a.inject({
      method: 'POST',
      url: '/api/v2/keys',
      headers: { authorization: first, 'content-type': 'application/json' },
      payload: {},
    });
    assert.equal(made.statusCode, 201, made.body);
    const apiKey = (JSON.parse(made.body) as { key: string }).key;
    await a.stop();

    const b = await startApp({ dataDir, apiKey: second });
    try {
      const get = (key: string) =>
        b.inject({ method: 'GET', url: '/api/v2/endpoints', headers: { authorization: key } });
      assert.equal((await get(first)).statusCode, 401, 'the old environment key no longer works');
      assert.equal((await get(second)).statusCode, 200);
      assert.equal((await get(apiKey)).statusCode, 200, 'a key made through the API stays');
    } finally {
      await b.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
