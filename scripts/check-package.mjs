// The release tarball as a user gets it, checked by CI (.ci/run) on each Node line: `npm pack` of this
// checkout, installed with `npm install -g` into an empty prefix, then the installed `mockingbird`
// command: `--help`, and `serve` answering the echo, the dashboard and the shipped example
// configuration. It shows that the package carries what the README promises (the build, the
// dashboard, examples/, LICENSE) and that nothing of it needs the clone. The install resolves the
// package's dependency ranges, so it reads the npm registry (what it can, it takes from npm's cache):
// a CI step, not a test (tests use nothing beyond loopback).
//
//   node scripts/check-package.mjs        prints one line per check; exits 1 on the first failure
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const started = Date.now();
const say = (line) => console.log(`check-package: ${line}`);
// npm run by this process's Node: each CI leg installs with its own.
const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };
for (const k of ['DATABASE_URL', 'REDIS_URL', 'PORT', 'DATA_DIR', 'MOCKINGBIRD_API_KEY']) delete env[k];

function npm(args, cwd) {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', env, timeout: 600_000 });
  assert.equal(r.status, 0, `npm ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const work = mkdtempSync(join(tmpdir(), 'mb-package-'));
try {
  assert.equal(spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], { stdio: 'inherit' }).status, 0);
  npm(['pack', '--ignore-scripts', '--pack-destination', work], process.cwd());
  const tarball = readdirSync(work).find((f) => /^mockingbird-server-.*\.tgz$/.test(f));
  assert.ok(tarball, 'npm pack made a tarball');
  say(`packed ${tarball}`);

  const prefix = join(work, 'prefix');
  const args = ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund'];
  // better-sqlite3 12 (optional) is only loaded below Node-API 10: where it is not, leave out its build.
  if (Number(process.versions.napi) >= 10) args.push('--omit=optional');
  npm([...args, join(work, tarball)], work);
  const pkg = join(prefix, 'lib', 'node_modules', 'mockingbird-server');
  for (const f of ['LICENSE', 'README.md', 'examples/mockingbird.yaml', 'dist/cli.js', 'dist/web/index.html'])
    assert.ok(existsSync(join(pkg, f)), `the package holds ${f}`);
  say(`installed into an empty prefix with Node ${process.version}`);
  const bin = join(prefix, 'bin', 'mockingbird');

  const help = spawnSync(bin, ['--help'], { cwd: work, encoding: 'utf8', env });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^Usage: mockingbird \[serve\]/);
  say('mockingbird --help');

  const served = spawn(bin, ['serve', '--port', '0', '--config', join(pkg, 'examples', 'mockingbird.yaml')], {
    cwd: work,
    env: { ...env, DATA_DIR: join(work, 'data'), LOG_LEVEL: 'warn', PROXY_ALLOW: '127.0.0.0/8,::1/128' },
  });
  try {
    let out = '';
    served.stderr.on('data', (c) => (out += c.toString()));
    const port = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 30_000);
      served.stdout.on('data', (c) => {
        out += c.toString();
        const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      served.on('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
    });
    const echo = await fetch(`http://127.0.0.1:${port}/e/echo/from-the-tarball?x=1`);
    assert.equal(echo.status, 200);
    assert.equal((await echo.json()).path, '/from-the-tarball?x=1');
    const dashboard = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(dashboard.status, 200);
    assert.match(await dashboard.text(), /<html/i);
    const user = await fetch(`http://127.0.0.1:${port}/e/users/users/42`);
    assert.equal(user.status, 200, 'the shipped example configuration answers');
    assert.equal((await user.json()).id, '42');
    say(
      'mockingbird serve --config <the package>/examples/mockingbird.yaml: echo, dashboard and example answer',
    );
    served.kill('SIGTERM');
    assert.equal(await new Promise((r) => served.on('exit', r)), 0);
  } finally {
    served.kill('SIGKILL');
  }
  // mockingbird-server/testing from the installed package: a server of its own, stopped again.
  const script = [
    `const { startMockingbird } = await import(${JSON.stringify(join(pkg, 'dist', 'testing', 'index.js'))});`,
    'const mb = await startMockingbird();',
    'const r = await fetch(mb.url + "/e/echo/testing");',
    'if (r.status !== 200) throw new Error("echo answered " + r.status);',
    'await mb.client.endpoints();',
    'await mb.stop();',
  ].join('\n');
  const testing = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: work,
    env,
    encoding: 'utf8',
  });
  assert.equal(testing.status, 0, testing.stderr);
  say('mockingbird-server/testing: startMockingbird() from the installed package');
  say(`passed in ${Math.round((Date.now() - started) / 1000)} s`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
