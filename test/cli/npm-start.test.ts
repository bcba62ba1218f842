/**
 * `npm start` on a built checkout answers quickly: the prestart step (scripts/build-if-stale.mjs)
 * skips the compiler when dist/ is newer than every input, so the port answers within 3 s instead
 * of after a ~10 s build. The staleness check itself is tested on a scratch tree.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_KEY } from '../helpers/app.js';

const SCRIPT = join(process.cwd(), 'scripts', 'build-if-stale.mjs');

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

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const addr = srv.address();
  await new Promise((r) => srv.close(r));
  return typeof addr === 'object' && addr ? addr.port : 0;
}

test('npm start on a built checkout: the port answers within 3 s, without building', async () => {
  // Build first when needed (a fresh checkout after `npm ci` is already built by `prepare`).
  const pre = spawnSync(process.execPath, [SCRIPT], { stdio: 'inherit' });
  assert.equal(pre.status, 0);
  assert.equal(check(process.cwd()), 0);

  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'mb-start-'));
  const started = Date.now();
  const child = spawn('npm', ['start'], {
    detached: true, // its own process group: npm, the prestart step and the server end together
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      MOCKINGBIRD_API_KEY: ADMIN_KEY,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => (output += b.toString()));
  try {
    let answeredAt: number | undefined;
    while (Date.now() - started < 30_000 && child.exitCode === null) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/v2/openapi.json`);
        await res.arrayBuffer();
        answeredAt = Date.now();
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    assert.ok(answeredAt !== undefined, `npm start never answered:\n${output}`);
    const took = answeredAt - started;
    assert.doesNotMatch(output, /building/);
    assert.ok(took < 3000, `the port answered after ${took} ms`);
  } finally {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    await new Promise((r) => child.once('close', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
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
