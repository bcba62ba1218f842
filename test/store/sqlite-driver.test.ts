/**
 * The SQLite driver for the running Node (src/store/sqlite-driver.ts): better-sqlite3 13 where Node
 * offers Node-API 10, the `better-sqlite3-12` alias elsewhere; and a database written on one Node line
 * opens on another, history worker and WAL included.
 *
 * The second part needs another Node binary: MOCKINGBIRD_OTHER_NODE names it (.ci/run sets it on both of
 * its legs, to the other leg's Node, so there it always runs); without it that test is skipped with a
 * message saying so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQLITE_DRIVER, openSqliteDatabase, sqliteDriverFor } from '../../src/store/sqlite-driver.js';
import { serveCli } from '../helpers/cli.js';

test('the driver is chosen by the Node-API version: 13 from Node-API 10 on, 12 below', () => {
  assert.equal(sqliteDriverFor('9'), 'better-sqlite3-12'); // Node 20, 22.12-22.13
  assert.equal(sqliteDriverFor('10'), 'better-sqlite3'); // Node 22.14+, 24
  assert.equal(sqliteDriverFor('11'), 'better-sqlite3');
  assert.equal(sqliteDriverFor(undefined), 'better-sqlite3-12');
  assert.equal(SQLITE_DRIVER, sqliteDriverFor(process.versions.napi));
});

test('the loaded driver opens a WAL database and survives its statements being collected', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mb-driver-'));
  try {
    const db = openSqliteDatabase(join(dir, 'x.db'));
    assert.equal(db.pragma('journal_mode = WAL', { simple: true }), 'wal');
    db.exec('CREATE TABLE t (v INTEGER)');
    // Statements finalised by the garbage collector are what aborted better-sqlite3 12 on Node 24.
    for (let i = 0; i < 20_000; i++) db.prepare('INSERT INTO t VALUES (?)').run(i);
    assert.deepEqual(db.prepare('SELECT count(*) AS n, sum(v) AS s FROM t').get(), {
      n: 20_000,
      s: 199_990_000,
    });
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const OTHER = process.env['MOCKINGBIRD_OTHER_NODE'];
const KEY = 'mb_test_key_nodelines_0123456789abcdef0';

async function echoThenCount(node: string, dataDir: string, path: string): Promise<string[]> {
  const s = await serveCli({ DATA_DIR: dataDir, MOCKINGBIRD_API_KEY: KEY }, 20_000, 'warn', 0, node);
  try {
    const r = await fetch(`http://127.0.0.1:${s.port}/e/echo${path}`, { method: 'POST', body: 'hi' });
    assert.equal(r.status, 200);
    await r.arrayBuffer();
    s.child.kill('SIGTERM');
    assert.equal(await s.exited, 0);
  } catch (err) {
    s.child.kill('SIGKILL');
    throw err;
  }
  const again = await serveCli({ DATA_DIR: dataDir, MOCKINGBIRD_API_KEY: KEY }, 20_000, 'warn', 0, node);
  try {
    const r = await fetch(`http://127.0.0.1:${again.port}/api/v2/endpoints/echo/requests?limit=10`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    assert.equal(r.status, 200);
    const body = (await r.json()) as { data: { path: string }[] };
    return body.data.map((e) => e.path).sort();
  } finally {
    again.child.kill('SIGTERM');
    await again.exited;
  }
}

test(
  'a database written on this Node line opens on the other, and back',
  { skip: OTHER ? false : 'set MOCKINGBIRD_OTHER_NODE to another Node binary (CI does)', timeout: 120_000 },
  async () => {
    const other = OTHER!;
    const otherVersion = execFileSync(other, ['--version'], { encoding: 'utf8' }).trim();
    assert.notEqual(otherVersion, process.version, 'the other Node is another version');
    const dataDir = mkdtempSync(join(tmpdir(), 'mb-cross-line-'));
    try {
      assert.deepEqual(await echoThenCount(process.execPath, dataDir, '/here'), ['/here']);
      assert.deepEqual(await echoThenCount(other, dataDir, '/there'), ['/here', '/there']);
      assert.deepEqual(await echoThenCount(process.execPath, dataDir, '/back'), ['/back', '/here', '/there']);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);
