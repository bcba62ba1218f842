/**
 * `--watch` under load (no failed request while the file changes, a broken file keeps the running
 * configuration) and export → import into a fresh server → the same answers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { exportConfig, importConfig, loadConfigFile, watchConfigFile } from '../../src/config-file/index.js';
import { ADMIN_KEY, adminAuth, startApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { until } from '../helpers/until.js';
import { EXAMPLE, getJson, tempFiles } from './helpers.js';

const version = (v: string) => `endpoints:
  live:
    rules:
      - method: GET
        conditions: [{ type: path, operator: equals, value: /v }]
        action: { type: mock, body: ${v} }
`;

describe('--watch', () => {
  let app: TestApp;
  before(async () => (app = await startApp({}, { listen: true })));
  after(() => app.stop());

  it('picks up a change while 20 loops of requests run, with no failed request; a broken file changes nothing', async () => {
    const dir = tempFiles({ 'm.yaml': version('one') });
    const file = join(dir, 'm.yaml');
    await loadConfigFile(app.ctx, file);
    const loads: unknown[] = [];
    const watcher = watchConfigFile(app.ctx, file, { debounceMs: 50, onLoad: (e) => loads.push(e) });
    let running = true;
    const failures: string[] = [];
    const seen = new Set<string>();
    const loops = Array.from({ length: 20 }, async () => {
      while (running) {
        const res = await fetch(`${app.url}/e/live/v`);
        const body = await res.text();
        if (res.status !== 200 || (body !== 'one' && body !== 'two')) failures.push(`${res.status} ${body}`);
        seen.add(body);
      }
    });
    try {
      await new Promise((r) => setTimeout(r, 100));
      writeFileSync(file, version('two'));
      await until(() => seen.has('two'), 5000, 'the change was not picked up');
      await new Promise((r) => setTimeout(r, 100));
      writeFileSync(file, version('[broken'));
      await until(() => loads.some((e) => e instanceof Error), 5000, 'the broken file was not read');
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      running = false;
      await Promise.all(loops);
      watcher.close();
    }
    assert.deepEqual(failures, []);
    assert.match(String((loads.find((e) => e instanceof Error) as Error).message), /m\.yaml:6:\d+/);
    assert.equal(await (await fetch(`${app.url}/e/live/v`)).text(), 'two', 'the running configuration stays');
  });
});

describe('export and import', () => {
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    a = await startApp({}, { listen: true });
    b = await startApp({}, { listen: true });
    await loadConfigFile(a.ctx, EXAMPLE);
  });
  after(async () => {
    await a.stop();
    await b.stop();
  });

  it('export → import into a fresh server → the same configuration and the same answers', async () => {
    const yaml = await exportConfig({ server: a.url, apiKey: ADMIN_KEY });
    assert.deepEqual(Object.keys((parse(yaml) as { endpoints: object }).endpoints).sort(), [
      'shop',
      'users',
      'webhooks',
    ]);
    const file = join(tempFiles({ 'exported.yaml': yaml }), 'exported.yaml');
    assert.deepEqual((await importConfig(file, { server: b.url, apiKey: ADMIN_KEY })).sort(), [
      'shop',
      'users',
      'webhooks',
    ]);
    for (const ep of ['users', 'webhooks', 'shop']) {
      for (const part of ['settings', 'rules', 'state']) {
        const strip = (body: unknown) =>
          JSON.stringify(body, (k, v: unknown) => (k === 'id' || k === 'lastModified' ? undefined : v));
        const x = await getJson(`${a.url}/api/v2/endpoints/${ep}/${part}`, { headers: adminAuth });
        const y = await getJson(`${b.url}/api/v2/endpoints/${ep}/${part}`, { headers: adminAuth });
        assert.equal(strip(y.body), strip(x.body), `${ep} ${part}`);
      }
    }
    for (const path of ['/e/users/health', '/e/webhooks/user-created', '/e/shop/products']) {
      const x = await getJson(a.url + path);
      const y = await getJson(b.url + path);
      assert.deepEqual([y.status, y.body], [x.status, x.body], path);
    }
    const u = await getJson(`${b.url}/e/users/users/9`);
    assert.equal((u.body as { id: string }).id, '9');
  });

  it('the commands: export prints YAML, import applies a file; a missing key is a usage error', async () => {
    const env = { MOCKINGBIRD_API_KEY: ADMIN_KEY };
    const out = await runCli(['export', '--server', a.url, '--endpoint', 'shop'], env);
    assert.equal(out.code, 0, out.stderr);
    assert.deepEqual(Object.keys((parse(out.stdout) as { endpoints: object }).endpoints), ['shop']);
    const file = join(tempFiles({ 'shop.yaml': out.stdout }), 'shop.yaml');
    const imp = await runCli(['import', file, '--server', b.url], env);
    assert.equal(imp.code, 0, imp.stderr);
    assert.match(imp.stderr, /Imported 1 endpoint/);
    const bad = join(
      tempFiles({ 'bad.yaml': readFileSync(file, 'utf8').replace('type: crud', 'type: nope') }),
      'bad.yaml',
    );
    const refused = await runCli(['import', bad, '--server', b.url], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /bad\.yaml:\d+:\d+: \/endpoints\/shop\/rules\/0\/action\/type: /);
    const noKey = await runCli(['export', '--server', a.url], { MOCKINGBIRD_API_KEY: '' });
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /--api-key KEY or MOCKINGBIRD_API_KEY/);
  });

  it('a server that does not answer, or refuses the key, is named in the error', async () => {
    const closed = 'http://127.0.0.1:1';
    const none = await runCli(['export', '--server', closed], { MOCKINGBIRD_API_KEY: ADMIN_KEY });
    assert.equal(none.code, 1);
    assert.match(
      none.stderr,
      /^mockingbird: export from http:\/\/127\.0\.0\.1:1 failed: no Mockingbird server answers there \(.+\): start one with `mockingbird serve`/,
    );
    const wrong = await runCli(['export', '--server', a.url], {
      MOCKINGBIRD_API_KEY: 'mb_wrong_key_0123456789abcdef0123456789',
    });
    assert.equal(wrong.code, 1);
    assert.match(
      wrong.stderr,
      new RegExp(`^mockingbird: export from ${a.url.replace(/[.]/g, '\\.')} failed: `),
    );
  });
});
