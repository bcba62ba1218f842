/**
 * Stops: a mocks-as-code file (or a setting) that names a special file. `blobFile: /dev/zero` and
 * `openapi: /dev/zero` were read until the kernel killed the process at 23.6 GB; a FIFO hung the
 * start in a blocking open() where SIGTERM could not act (issue 30, item 2). Only regular files are
 * read, opened without waiting, within their limit checked before reading; anything else stops the
 * start with exit 2, the file and the field named, at once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigFileError, loadConfigFile } from '../../src/config-file/index.js';
import { checkRegularFile, readRegularFile } from '../../src/regular-file.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';

/** A folder with `fifo` (a named pipe nobody writes), `dir` (a folder) and `big.json` (1025 bytes). */
function specials(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mb-special-'));
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  mkdirSync(join(dir, 'dir'));
  writeFileSync(join(dir, 'big.json'), JSON.stringify({ pad: 'x'.repeat(1015) }));
  return dir;
}

const rule = (blobFile: string) =>
  `      - conditions: [{ type: path, operator: equals, value: /a }]\n` +
  `        action: { type: mock, blobFile: ${JSON.stringify(blobFile)} }\n`;

/** A configuration whose every file reference is a special file or too large (BLOB_LIMIT=1024). */
const EVERY_KIND =
  'endpoints:\n' +
  '  blobs:\n' +
  '    rules:\n' +
  rule('/dev/zero') +
  rule('fifo') +
  rule('dir') +
  rule('big.json') +
  '  zero-spec:\n' +
  '    openapi: /dev/zero\n' +
  '  fifo-spec:\n' +
  '    openapi: { file: fifo }\n';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('files a configuration names are read only if regular and within their limit', () => {
  let dir: string;
  before(() => (dir = specials()));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('/dev/zero, a FIFO, a directory and an oversized file: serve exits 2 at once, each file and field named', async () => {
    const file = join(dir, 'm.yaml');
    writeFileSync(file, EVERY_KIND);
    const started = Date.now();
    const r = await runCli(['serve', '--config', file, '--port', '0', '--log-level', 'silent'], {
      DATA_DIR: mkdtempSync(join(tmpdir(), 'mockingbird-test-')),
      BLOB_LIMIT: '1024',
    });
    const took = Date.now() - started;
    assert.equal(r.code, 2, r.stderr);
    assert.ok(took < 15_000, `refused in ${took} ms`);
    const at = (line: number, field: string, what: string) =>
      new RegExp(`${escape(file)}:${line}:\\d+: ${escape(field)}: .*${what}`);
    const blob = (i: number) => `/endpoints/blobs/rules/${i}/action/blobFile`;
    assert.match(r.stderr, at(5, blob(0), '/dev/zero is a character device, not a regular file'));
    assert.match(r.stderr, at(7, blob(1), 'fifo is a FIFO \\(named pipe\\), not a regular file'));
    assert.match(r.stderr, at(9, blob(2), 'dir is a directory, not a regular file'));
    assert.match(r.stderr, at(11, blob(3), 'big\\.json is 1025 bytes, larger than the limit of 1024 bytes'));
    assert.match(r.stderr, at(13, '/endpoints/zero-spec/openapi', '/dev/zero is a character device'));
    assert.match(r.stderr, at(15, '/endpoints/fifo-spec/openapi/file', 'fifo is a FIFO'));
  });

  it('the configuration file itself, PLANS_FILE and TLS_CERT: a device or FIFO stops the start with one line, exit 2', async () => {
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'mockingbird-test-')) };
    const fifo = join(dir, 'fifo');
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--config', '/dev/zero'], {}, /--config: \/dev\/zero is a character device, not a regular file/],
      [[], { MOCKINGBIRD_CONFIG: fifo }, /MOCKINGBIRD_CONFIG: .*fifo is a FIFO \(named pipe\)/],
      [[], { PLANS_FILE: '/dev/zero' }, /PLANS_FILE: \/dev\/zero is a character device/],
      [[], { TLS_CERT: fifo, TLS_KEY: fifo }, /TLS_CERT: .*fifo is a FIFO/],
      [[], { PLANS_FILE: dir }, /PLANS_FILE: .* is a directory, not a regular file/],
    ];
    for (const [args, extra, message] of cases) {
      const r = await runCli(['serve', '--port', '0', ...args], { ...env, ...extra }, 15_000);
      assert.equal(r.code, 2, `${JSON.stringify(extra)} ${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, message);
    }
  });

  it('a configuration file over CONFIG_FILE_LIMIT is refused before it is read', async () => {
    const file = join(dir, 'large.yaml');
    writeFileSync(file, `endpoints: {}\n# ${'x'.repeat(2000)}\n`);
    const r = await runCli(['serve', '--config', file, '--port', '0', '--log-level', 'silent'], {
      DATA_DIR: mkdtempSync(join(tmpdir(), 'mockingbird-test-')),
      CONFIG_FILE_LIMIT: '2000',
    });
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /large\.yaml: \/: cannot be read: .*large\.yaml is 2017 bytes, larger than the limit/,
    );
  });
});

describe('loadConfigFile in a running server', () => {
  let app: TestApp;
  let dir: string;
  before(async () => {
    app = await startApp({ blobLimit: 1024 });
    dir = specials();
  });
  after(async () => {
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a directory or an oversized blob is refused with its field, and nothing is applied', async () => {
    const file = join(dir, 'm.yaml');
    writeFileSync(file, 'endpoints:\n  aaa:\n    rules:\n' + rule('dir') + rule('big.json'));
    const err = await loadConfigFile(app.ctx, file).then(
      () => assert.fail('loaded'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ConfigFileError, String(err));
    assert.match(err.message, /\/rules\/0\/action\/blobFile: .*dir is a directory/);
    assert.match(err.message, /\/rules\/1\/action\/blobFile: .*big\.json is 1025 bytes/);
    assert.equal(await app.ctx.store.getEndpoint('aaa'), undefined);
  });
});

describe('readRegularFile', () => {
  let dir: string;
  before(() => (dir = specials()));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a file of limit - 1 and limit bytes, refuses limit + 1 before reading', () => {
    const file = join(dir, 'sized');
    writeFileSync(file, 'a'.repeat(99));
    assert.equal(readRegularFile(file, 100).length, 99);
    appendFileSync(file, 'b');
    assert.equal(readRegularFile(file, 100).toString(), 'a'.repeat(99) + 'b');
    appendFileSync(file, 'c');
    assert.throws(() => readRegularFile(file, 100), /sized is 101 bytes, larger than the limit of 100 bytes/);
  });

  it('refuses a FIFO without waiting for a writer, a device and a directory; a missing file is the system error', () => {
    assert.throws(
      () => readRegularFile(join(dir, 'fifo'), 100),
      /is a FIFO \(named pipe\), not a regular file/,
    );
    assert.throws(() => checkRegularFile(join(dir, 'fifo')), /is a FIFO/);
    assert.throws(() => readRegularFile('/dev/zero', 100), /\/dev\/zero is a character device/);
    assert.throws(() => readRegularFile(join(dir, 'dir'), 100), /is a directory/);
    assert.throws(() => readRegularFile(join(dir, 'missing'), 100), { code: 'ENOENT' });
    checkRegularFile(join(dir, 'big.json'));
  });
});
