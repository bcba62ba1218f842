/**
 * `npm start` on a built checkout answers quickly: the prestart step (scripts/build-if-stale.mjs)
 * skips the compiler when dist/ is newer than every input, so the port answers within 3 s instead
 * of after a ~10 s build. The 3 s are timed by scripts/time-start.mjs, which .ci/run runs right after
 * `npm ci` on a quiet machine: among the suite's parallel files the same start took over 4 s on the
 * clock and 3.4 s of CPU. Here the script runs with a loose limit: it answers, without building.
 * The staleness check itself is tested on a scratch tree.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(process.cwd(), 'scripts', 'build-if-stale.mjs');
const TIME_START = join(process.cwd(), 'scripts', 'time-start.mjs');

function check(root: string): number {
  return spawnSync(process.execPath, [SCRIPT, '--check', '--root', root]).status ?? -1;
}

test('build-if-stale: missing, stamped, then stale after a source, web/ or tsconfig change', () => {
  const root = mkdtempSync(join(tmpdir(), 'mb-stale-'));
  try {
    mkdirSync(join(root, 'src'));
    mkdirSync(join(root, 'dist'));
    writeFileSync(join(root, 'src', 'a.ts'), '');
    writeFileSync(join(root, 'package.json'), '{}');
    assert.equal(check(root), 1, 'no build yet');
    writeFileSync(join(root, 'dist', 'cli.js'), '');
    assert.equal(check(root), 1, 'no stamp yet');
    spawnSync(process.execPath, [SCRIPT, '--stamp', '--root', root]);
    assert.equal(check(root), 0, 'stamped');
    const later = new Date(Date.now() + 5000);
    utimesSync(join(root, 'src', 'a.ts'), later, later);
    assert.equal(check(root), 1, 'a source changed');
    spawnSync(process.execPath, [SCRIPT, '--stamp', '--root', root]);
    assert.equal(check(root), 0);
    mkdirSync(join(root, 'web'));
    writeFileSync(join(root, 'web', 'app.ts'), '');
    const evenLater = new Date(Date.now() + 10_000);
    utimesSync(join(root, 'web', 'app.ts'), evenLater, evenLater);
    assert.equal(check(root), 1, 'a web/ file changed');
    spawnSync(process.execPath, [SCRIPT, '--stamp', '--root', root]);
    writeFileSync(join(root, 'tsconfig.build.json'), '{}');
    const last = new Date(Date.now() + 15_000);
    utimesSync(join(root, 'tsconfig.build.json'), last, last);
    assert.equal(check(root), 1, 'a tsconfig changed');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('npm start on a built checkout answers without building (timed against 3 s by .ci/run)', () => {
  // scripts/time-start.mjs builds first when needed, then starts `npm start` and waits for the port.
  // Its 3 s limit is checked by .ci/run on a quiet machine; here, among parallel test files, only
  // that it answers and does not build.
  const res = spawnSync(process.execPath, [TIME_START, '--limit-ms', '60000'], { encoding: 'utf8' });
  assert.equal(res.status, 0, res.stdout + res.stderr);
  assert.match(res.stdout, /npm start answered in \d+ ms/);
  assert.equal(check(process.cwd()), 0, 'the build is current');
});

test('the built package exports the client as mockingbird-server/client and as the package root', () => {
  // A child process without tsx or the test's path mapping: Node's own resolution of the package's
  // `exports` (a package may import itself by name), loading dist/ only.
  const code =
    "const a = await import('mockingbird-server/client'); const b = await import('mockingbird-server');" +
    "if (typeof a.Mockingbird !== 'function' || a.Mockingbird !== b.Mockingbird) process.exit(3);" +
    'console.log(JSON.stringify(Object.keys(a).sort()));';
  const res = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
  assert.match(res.stdout, /"Mockingbird"/);
  assert.match(res.stdout, /"MockingbirdError"/);
});
