/**
 * Files that do not load: refused with the file, line and field, and nothing applied; at start the
 * command exits 2 with the same lines on stderr. Also the files a configuration names (blobFile, openapi).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ConfigFileError, loadConfigFile } from '../../src/config-file/index.js';
import { adminAuth, startApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { getJson, tempFiles } from './helpers.js';

const BAD_STATUS = `endpoints:
  orders:
    rules:
      - conditions:
          - { type: path, operator: equals, value: /a }
        action:
          type: mock
          status: 9999
`;

async function refused(
  app: TestApp,
  text: string,
  extra: Record<string, string> = {},
): Promise<ConfigFileError> {
  const file = join(tempFiles({ 'm.yaml': text, ...extra }), 'm.yaml');
  const err = await loadConfigFile(app.ctx, file).then(
    () => assert.fail('loaded'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ConfigFileError, String(err));
  assert.ok(err.message.startsWith(file), err.message);
  return err;
}

describe('an invalid configuration file', () => {
  let app: TestApp;
  before(async () => (app = await startApp({}, { listen: true })));
  after(() => app.stop());

  it('names the line and field of a rule the API would refuse, and applies nothing', async () => {
    const err = await refused(app, BAD_STATUS);
    assert.match(err.message, /m\.yaml:8:\d+: \/endpoints\/orders\/rules\/0\/action\/status: /);
    assert.equal(await app.ctx.store.getEndpoint('orders'), undefined);
  });

  it('YAML syntax, unknown keys, bad settings, bad state, bad names and the echo endpoint', async () => {
    assert.match((await refused(app, 'endpoints:\n  aaa: [\n')).message, /m\.yaml:\d+:\d+: \/: /);
    assert.match(
      (await refused(app, 'endpoints:\n  aaa:\n    rulez: []\n')).message,
      /m\.yaml:3:\d+: \/endpoints\/aaa\/rulez: /,
    );
    assert.match(
      (await refused(app, 'endpoints:\n  aaa:\n    settings:\n      rateLimit: { rate: 0 }\n')).message,
      /m\.yaml:4:\d+: \/endpoints\/aaa\/settings\/rateLimit\/rate: /,
    );
    assert.match(
      (await refused(app, 'endpoints:\n  aaa:\n    state:\n      - { type: counter, key: n, value: x }\n'))
        .message,
      /m\.yaml:4:\d+: \/endpoints\/aaa\/state\/0\/value: /,
    );
    assert.match((await refused(app, 'endpoints:\n  Bad_Name!: {}\n')).message, /\/endpoints\/Bad_Name!: /);
    assert.match((await refused(app, 'endpoints:\n  echo: {}\n')).message, /\/endpoints\/echo: .*built-in/);
    assert.match((await refused(app, 'version: 2\nendpoints: {}\n')).message, /m\.yaml:1:\d+: \/version: /);
  });

  it('an environment variable that is not set, and a file it names that does not exist', async () => {
    const env = await refused(
      app,
      'endpoints:\n  aaa:\n    settings:\n      proxy: { targetUrl: "${MOCKINGBIRD_TEST_UNSET_VAR}" }\n',
    );
    assert.match(
      env.message,
      /m\.yaml:4:\d+: \/endpoints\/aaa\/settings\/proxy\/targetUrl: .*MOCKINGBIRD_TEST_UNSET_VAR/,
    );
    const blob = await refused(
      app,
      'endpoints:\n  aaa:\n    rules:\n      - conditions: [{ type: path, operator: equals, value: /a }]\n        action: { type: mock, blobFile: missing.json }\n',
    );
    assert.match(
      blob.message,
      /m\.yaml:5:\d+: \/endpoints\/aaa\/rules\/0\/action\/blobFile: The file cannot be read/,
    );
    const spec = await refused(app, 'endpoints:\n  aaa:\n    openapi: spec.yaml\n', {
      'spec.yaml': 'openapi: 3.0.3\n',
    });
    assert.match(spec.message, /m\.yaml:3:\d+: \/endpoints\/aaa\/openapi: /);
  });

  it('mockingbird serve --config refuses to start: exit 2, the file, line and field on stderr', async () => {
    const file = join(tempFiles({ 'm.yaml': BAD_STATUS }), 'm.yaml');
    const dataDir = mkdtempSync(join(tmpdir(), 'mockingbird-test-'));
    const r = await runCli(['serve', '--config', file, '--port', '0', '--log-level', 'silent'], {
      DATA_DIR: dataDir,
    });
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      new RegExp(
        `${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:8:\\d+: /endpoints/orders/rules/0/action/status: `,
      ),
    );
    const w = await runCli(['serve', '--watch', '--port', '0'], { DATA_DIR: dataDir });
    assert.equal(w.code, 2);
    assert.match(w.stderr, /--watch needs --config/);
  });
});

describe('files a configuration names', () => {
  let app: TestApp;
  before(async () => (app = await startApp({}, { listen: true })));
  after(() => app.stop());

  it('blobFile: the file is answered with its type; loading again reuses the one blob', async () => {
    const dir = tempFiles({
      'm.yaml':
        'endpoints:\n  files:\n    rules:\n      - conditions: [{ type: path, operator: equals, value: /data }]\n        action: { type: mock, blobFile: data.json }\n',
      'data.json': '{"from":"file"}',
    });
    await loadConfigFile(app.ctx, join(dir, 'm.yaml'));
    await loadConfigFile(app.ctx, join(dir, 'm.yaml'));
    const res = await fetch(`${app.url}/e/files/data`);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await res.json(), { from: 'file' });
    const blobs = await getJson(`${app.url}/api/v2/endpoints/files/blobs`, { headers: adminAuth });
    assert.equal((blobs.body as { data: unknown[] }).data.length, 1);
  });

  it('openapi: the document is served; a file without it removes it', async () => {
    const spec = JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'Pets', version: '1.0.0' },
      paths: {
        '/pets': {
          get: {
            responses: {
              '200': { description: 'ok', content: { 'application/json': { example: [{ name: 'Rex' }] } } },
            },
          },
        },
      },
    });
    const dir = tempFiles({
      'm.yaml': 'endpoints:\n  pets:\n    openapi: spec.json\n',
      'n.yaml': 'endpoints:\n  pets: {}\n',
      'spec.json': spec,
    });
    await loadConfigFile(app.ctx, join(dir, 'm.yaml'));
    assert.deepEqual((await getJson(`${app.url}/e/pets/pets`)).body, [{ name: 'Rex' }]);
    await loadConfigFile(app.ctx, join(dir, 'n.yaml'));
    const info = await getJson(`${app.url}/api/v2/endpoints/pets/specs`, { headers: adminAuth });
    assert.equal(info.status, 404);
  });
});
