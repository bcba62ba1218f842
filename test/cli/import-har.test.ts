/**
 * `mockingbird import --har FILE --endpoint NAME`: preview and import through a running server's API,
 * the lines it prints, and its exit codes (2 usage, 1 unreadable file or refused by the server).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importHarCommand } from '../../src/commands/index.js';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/har/chrome-capture.har', import.meta.url));
let app: TestApp;
let dir: string;
before(async () => {
  app = await startApp({}, { listen: true });
  await createEndpoint(app, 'cli-har');
  dir = mkdtempSync(join(tmpdir(), 'mockingbird-har-cli-'));
});
after(async () => {
  await app.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  let out = '';
  let err = '';
  const code = await importHarCommand(args, {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { MOCKINGBIRD_URL: app.url, MOCKINGBIRD_API_KEY: ADMIN_KEY, ...env },
  });
  return { code, out, err };
}

test('--preview prints what would be created and skipped, and changes nothing', async () => {
  const r = await run(['--har', FIXTURE, '--endpoint', 'cli-har', '--preview']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^would create: GET \/api\/items$/m);
  assert.match(r.out, /^skipped entry 1: binary response body/m);
  assert.match(r.err, /Preview: would create 7 rule\(s\) on "cli-har".*skipped 1 entry/);
  assert.equal((await call(app, 'GET', '/endpoints/cli-har/rules')).body.data.length, 0);
});

test('imports the rules, with --header as conditions; a second run finds only duplicates', async () => {
  const r = await run(['--har', FIXTURE, '--endpoint', 'cli-har', '--header', 'x-tenant']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /^Created 7 rule\(s\)/);
  const rules = (await call(app, 'GET', '/endpoints/cli-har/rules')).body.data as {
    method: string;
    conditions: { type: string; key?: string }[];
  }[];
  assert.equal(rules.length, 7);
  const post = rules.find((x) => x.method === 'POST')!;
  assert.ok(post.conditions.some((c) => c.type === 'header' && c.key === 'x-tenant'));
  const again = await run(['--har', FIXTURE, '--endpoint', 'cli-har']);
  assert.equal(again.code, 0);
  assert.match(again.err, /^Created 0 rule\(s\)/);
  assert.match(again.out, /duplicate of an existing rule/);
});

test('usage errors exit 2; an unreadable file and a refusal by the server exit 1', async () => {
  assert.equal((await run(['--har', FIXTURE])).code, 2);
  assert.equal((await run(['--har', FIXTURE, '--endpoint', 'Bad Name!'])).code, 2);
  assert.equal((await run(['--har', FIXTURE, '--endpoint', 'cli-har', '--nope'])).code, 2);
  assert.equal((await run(['--har', FIXTURE, '--endpoint', 'cli-har'], { MOCKINGBIRD_API_KEY: '' })).code, 2);
  const notJson = join(dir, 'broken.har');
  writeFileSync(notJson, '{"log":');
  const broken = await run(['--har', notJson, '--endpoint', 'cli-har']);
  assert.equal(broken.code, 1);
  assert.match(broken.err, /cannot read .*broken\.har as a HAR/);
  assert.equal((await run(['--har', dir, '--endpoint', 'cli-har'])).code, 1);
  const missing = await run(['--har', FIXTURE, '--endpoint', 'no-such-endpoint']);
  assert.equal(missing.code, 1);
  assert.match(missing.err, /import --har into .* failed: .*does not exist/);
  const help = await run(['--har', FIXTURE, '--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /^Usage: mockingbird import --har FILE --endpoint NAME/);
});
