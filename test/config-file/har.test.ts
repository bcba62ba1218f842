/**
 * `har:` in a configuration file (issue 37): a HAR named relative to the file becomes mock rules after
 * the file's own, as the API's import makes them; an entry duplicating a file rule is skipped; loading
 * the same file again creates no duplicates; the object form takes `headers`; a HAR that cannot be
 * used is refused with the file's line and field, and nothing is applied. HAR_IMPORT_LIMIT bounds it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { ConfigFileError, importConfig, loadConfigFile } from '../../src/config-file/index.js';
import { HAR_MAX_ENTRIES } from '../../src/mock/index.js';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { tempFiles } from './helpers.js';

const CHROME_HAR = readFileSync(
  fileURLToPath(new URL('../fixtures/har/chrome-capture.har', import.meta.url)),
  'utf8',
);

/** HAR_IMPORT_LIMIT of the tests: room for the Chrome capture and for HAR_MAX_ENTRIES + 1 empty entries. */
const LIMIT = 64_000;

const FILE = `endpoints:
  shop-har:
    rules:
      - conditions: [{ type: path, operator: equals, value: /api/items/7 }]
        method: GET
        action: { type: mock, body: from the file }
    har: captures/chrome.har
`;

/** Loads `text` as m.yaml beside `files`; answers the file's path. */
function fileWith(text: string, files: Record<string, string> = {}): string {
  return join(tempFiles({ 'm.yaml': text, ...files }), 'm.yaml');
}

async function refused(app: TestApp, file: string): Promise<ConfigFileError> {
  const err = await loadConfigFile(app.ctx, file).then(
    () => assert.fail('loaded'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ConfigFileError, String(err));
  return err;
}

describe('a configuration file naming a HAR', () => {
  let app: TestApp;
  before(async () => (app = await startApp({ harImportLimit: LIMIT }, { listen: true })));
  after(() => app.stop());

  it('appends the entries as rules after the file’s, skips duplicates, and reloads without duplicating', async () => {
    const dir = tempFiles({ 'm.yaml': FILE });
    const file = join(dir, 'm.yaml');
    mkdirSync(join(dir, 'captures'));
    writeFileSync(join(dir, 'captures', 'chrome.har'), CHROME_HAR);
    await loadConfigFile(app.ctx, file);
    const rules = await app.ctx.store.listRules('shop-har');
    // 8 entries: the PNG is skipped (not text), GET /api/items/7 is the file's rule.
    assert.equal(rules.length, 1 + 6);
    const first = await request(`${app.url}/e/shop-har/api/items/7`);
    assert.equal(await first.body.text(), 'from the file');
    const list = await request(`${app.url}/e/shop-har/api/items?size=2&page=1`);
    assert.equal(list.statusCode, 200);
    assert.match(await list.body.text(), /"name":"Kettle"/);
    const missing = await request(`${app.url}/e/shop-har/api/items/404`);
    assert.equal(missing.statusCode, 404);
    assert.equal(await missing.body.text(), '{"error":"no such item"}');
    const created = await request(`${app.url}/e/shop-har/api/items`, { method: 'POST', body: '{}' });
    assert.equal(created.statusCode, 201);
    await created.body.text();

    await loadConfigFile(app.ctx, file);
    await loadConfigFile(app.ctx, file);
    assert.equal((await app.ctx.store.listRules('shop-har')).length, 7, 'a reload duplicated rules');
  });

  it('`import` through the API applies the HAR too, and again without duplicates', async () => {
    const file = fileWith('endpoints:\n  shop-har-remote:\n    har: c.har\n', { 'c.har': CHROME_HAR });
    assert.deepEqual(await importConfig(file, { server: app.url, apiKey: ADMIN_KEY }), ['shop-har-remote']);
    await importConfig(file, { server: app.url, apiKey: ADMIN_KEY });
    assert.equal((await app.ctx.store.listRules('shop-har-remote')).length, 7);
    const notes = await request(`${app.url}/e/shop-har-remote/api/notes`);
    assert.equal(await notes.body.text(), 'Remember the milk.\n');
  });

  it('the object form names request headers that become conditions', async () => {
    const file = fileWith('endpoints:\n  shop-har-headers:\n    har: { file: c.har, headers: [Origin] }\n', {
      'c.har': CHROME_HAR,
    });
    await loadConfigFile(app.ctx, file);
    const rules = await app.ctx.store.listRules('shop-har-headers');
    assert.equal(rules.length, 7);
    const post = JSON.stringify(rules.find((r) => JSON.stringify(r).includes('"POST"')));
    assert.match(post, /"type":"header","key":"origin","operator":"equals"/);
    const noOrigin = await request(`${app.url}/e/shop-har-headers/api/items`, { method: 'POST' });
    assert.notEqual(noOrigin.statusCode, 201, 'the rule answered without the Origin header');
    await noOrigin.body.text();
  });

  it('refuses a HAR it cannot read or use, at the line of `har`, and applies nothing', async () => {
    const cases: [string, Record<string, string>, RegExp][] = [
      ['har: nowhere.har', {}, /\/endpoints\/bad-har\/har: The HAR file cannot be imported: /],
      ['har: c.har', { 'c.har': '{ not json' }, /har: The HAR file cannot be imported: not JSON/],
      ['har: c.har', { 'c.har': '{"log":{}}' }, /log\.entries must be an array/],
      ['har: { file: c.har }', { 'c.har': 'null' }, /\/endpoints\/bad-har\/har\/file: .*log\.entries/],
      [
        'har: c.har',
        { 'c.har': JSON.stringify({ log: { entries: Array(HAR_MAX_ENTRIES + 1).fill({}) } }) },
        new RegExp(`${HAR_MAX_ENTRIES + 1} entries; a HAR holds at most ${HAR_MAX_ENTRIES}`),
      ],
      ['har: { file: c.har, header: [a] }', { 'c.har': CHROME_HAR }, /\/endpoints\/bad-har\/har/],
    ];
    for (const [line, files, message] of cases) {
      const err = await refused(app, fileWith(`endpoints:\n  bad-har:\n    ${line}\n`, files));
      assert.match(err.message, /m\.yaml:3:\d+: /, err.message);
      assert.match(err.message, message);
      assert.equal(await app.ctx.store.getEndpoint('bad-har'), undefined);
    }
  });

  it('HAR_IMPORT_LIMIT: a HAR of the limit loads, one byte more is refused', async () => {
    const doc = JSON.stringify({ log: { entries: [] } });
    const at = doc + ' '.repeat(LIMIT - doc.length);
    await loadConfigFile(app.ctx, fileWith('endpoints:\n  har-limit:\n    har: c.har\n', { 'c.har': at }));
    assert.ok(await app.ctx.store.getEndpoint('har-limit'));
    const below = at.slice(0, -1);
    await loadConfigFile(app.ctx, fileWith('endpoints:\n  har-limit:\n    har: c.har\n', { 'c.har': below }));
    const err = await refused(
      app,
      fileWith('endpoints:\n  har-over:\n    har: c.har\n', { 'c.har': `${at} ` }),
    );
    assert.match(err.message, /har-over\/har: The HAR file cannot be imported: /);
    assert.equal(await app.ctx.store.getEndpoint('har-over'), undefined);
  });
});
