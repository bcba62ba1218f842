// Times `npm start` on a built checkout: from the command to the first answer of the port, which must
// come without a build and within the limit (3 s by default). .ci/run runs it right after `npm ci`,
// while nothing else loads the machine: under the test suite's parallel files the same start took
// over 4 s on the clock and 3.4 s of CPU, so a timed unit test could not tell a slow start from a
// busy machine. test/cli/npm-start.test.ts runs it with a loose limit for the rest (it answers, it
// does not build).
//
//   node scripts/time-start.mjs [--limit-ms 3000]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const limitAt = args.indexOf('--limit-ms');
const limitMs = limitAt >= 0 ? Number(args[limitAt + 1]) : 3000;

function fail(message) {
  console.error(`time-start: ${message}`);
  process.exitCode = 1;
}

// A fresh checkout after `npm ci` is built by `prepare`; build here only if it is not.
const pre = spawnSync(process.execPath, [join(root, 'scripts', 'build-if-stale.mjs')], { stdio: 'inherit' });
if (pre.status !== 0) {
  fail('the build failed');
  process.exit();
}

const port = await new Promise((resolve) => {
  const srv = createServer().listen(0, '127.0.0.1', () => {
    const { port } = srv.address();
    srv.close(() => resolve(port));
  });
});
const dataDir = mkdtempSync(join(tmpdir(), 'mb-start-'));
const started = Date.now();
const child = spawn('npm', ['start'], {
  cwd: root,
  detached: true, // its own process group: npm, the prestart step and the server end together
  env: {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    MOCKINGBIRD_API_KEY: 'mb_time_start_key_0123456789abcdefghijkl',
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
child.stdout.on('data', (b) => (output += b.toString()));
child.stderr.on('data', (b) => (output += b.toString()));
try {
  let answeredAt;
  while (Date.now() - started < 60_000 && child.exitCode === null) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v2/openapi.json`);
      await res.arrayBuffer();
      answeredAt = Date.now();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  if (answeredAt === undefined) fail(`npm start never answered:\n${output}`);
  else if (/building/.test(output)) fail(`npm start built the checkout first:\n${output}`);
  else {
    const took = answeredAt - started;
    console.log(`npm start answered in ${took} ms (limit ${limitMs} ms)`);
    if (took >= limitMs) fail(`npm start answered after ${took} ms, over the ${limitMs} ms limit`);
  }
} finally {
  if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
  await new Promise((r) => child.once('close', r));
  rmSync(dataDir, { recursive: true, force: true });
}
