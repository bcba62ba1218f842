/**
 * `npm start` on a built checkout answers quickly: the prestart step (scripts/build-if-stale.mjs)
 * skips the compiler when dist/ is newer than every input, so the port answers within 3 s instead
 * of after a ~10 s build. The 3 s are counted in CPU time (npm, the prestart step and the server
 * together, up to the first answer): on a machine busy with other tests the wall-clock time grows
 * with the load (4 s seen under CI), while the work done, which a build would multiply, does not.
 * The staleness check itself is tested on a scratch tree.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
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

const TICKS_PER_S = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/**
 * CPU seconds used so far by the processes of group `pgid` (Linux /proc): each one's user and system
 * time, plus those of its children that have exited and been waited for (the prestart step).
 */
function groupCpuSeconds(pgid: number): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // Fields after the command name (which may hold spaces): state ppid pgrp … utime(14) stime cutime cstime.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(f[2]) !== pgid) continue;
    ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  }
  return ticks / TICKS_PER_S;
}

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
    const cpu = groupCpuSeconds(child.pid!);
    const took = answeredAt - started;
    assert.doesNotMatch(output, /building/);
    assert.ok(cpu > 0.1, `the CPU time was read (${cpu} s)`);
    assert.ok(cpu < 3, `the port answered after ${cpu.toFixed(2)} s of CPU time (${took} ms on the clock)`);
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
