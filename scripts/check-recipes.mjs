// The test-runner recipes of docs/testing.md (examples/testing/<runner>/), run as a user's project
// runs them: `npm pack` of this checkout, installed with the pinned Vitest, Jest and @playwright/test
// of this repository's devDependencies into an empty scratch project, each recipe folder copied from
// the installed package into it and the command the doc shows run there. Vitest and Jest start the server with
// `startMockingbird()` in a global setup, Playwright with `mockingbird serve` as its webServer, and
// drives Debian's Chromium (CHROMIUM_PATH or /usr/bin/chromium). Each run must report exactly the
// recipe's number of passed tests. Nothing is written into the checkout; the install reads the npm
// registry for what npm's cache lacks, so this is a CI step (.ci/run), not a test.
//
//   node scripts/check-recipes.mjs [vitest|jest|playwright …]   one line per recipe; exit 1 on a failure
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Each recipe: its folder under examples/testing/, the command docs/testing.md shows for it (run here
 * by a shell, as typed; test/testing/recipes-docs.test.ts checks the doc shows these), and how many
 * tests its runner must report passed.
 */
const RECIPES = [
  { name: 'vitest', command: 'npx --no vitest run', passed: /Tests\s+(\d+) passed/, tests: 1 },
  {
    name: 'jest',
    // Jest runs ES modules only with Node's VM modules (its documented ESM set-up).
    command: 'NODE_OPTIONS=--experimental-vm-modules npx --no jest',
    passed: /Tests:\s+(\d+) passed/,
    tests: 1,
  },
  { name: 'playwright', command: 'npx --no playwright test', passed: /\b(\d+) passed\b/, tests: 3 },
];

const started = Date.now();
const say = (line) => console.log(`check-recipes: ${line}`);
const chosen = process.argv.slice(2);
for (const name of chosen)
  assert.ok(
    RECIPES.some((r) => r.name === name),
    `no recipe ${name} (${RECIPES.map((r) => r.name).join(', ')})`,
  );
const recipes = chosen.length > 0 ? RECIPES.filter((r) => chosen.includes(r.name)) : RECIPES;

const work = mkdtempSync(join(tmpdir(), 'mb-recipes-'));
// npm and the runners run by this process's Node; temporary folders (the servers' data) stay in `work`.
const env = {
  ...process.env,
  PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
  TMPDIR: join(work, 'tmp'),
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
  NO_COLOR: '1', // the passed-tests lines are read below
};
for (const k of [
  'FORCE_COLOR',
  'DATABASE_URL',
  'REDIS_URL',
  'PORT',
  'DATA_DIR',
  'MOCKINGBIRD_API_KEY',
  'MOCKINGBIRD_URL',
])
  delete env[k];

function npm(args, cwd) {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', env, timeout: 600_000 });
  assert.equal(r.status, 0, `npm ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** A port free right now, for Playwright's webServer (its recipe takes MOCKINGBIRD_PORT). */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  assert.ok(address && typeof address === 'object');
  return address.port;
}

try {
  mkdirSync(env.TMPDIR);
  assert.equal(spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], { stdio: 'inherit' }).status, 0);
  npm(['pack', '--ignore-scripts', '--pack-destination', work], process.cwd());
  const tarball = readdirSync(work).find((f) => /^mockingbird-server-.*\.tgz$/.test(f));
  assert.ok(tarball, 'npm pack made a tarball');

  // The runners at the versions this repository pins (package-lock.json puts them in npm's cache).
  const dev = JSON.parse(readFileSync('package.json', 'utf8')).devDependencies;
  const runners = ['vitest', 'jest', '@playwright/test'].map((name) => {
    assert.match(dev[name] ?? '', /^\d+\.\d+\.\d+$/, `package.json pins ${name} to one version`);
    return `${name}@${dev[name]}`;
  });
  const project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'recipes-check', private: true, type: 'module' }, null, 2),
  );
  // Optional dependencies stay: Vitest's bundler loads its native binding from one. From Node-API 10
  // (Node 22.14+, 24) no package of this tree needs its install script: better-sqlite3 13 ships
  // prebuilt, and the optional better-sqlite3 12, loaded only below Node-API 10, would be compiled from
  // source for nothing (minutes on a CI machine).
  const args = ['install', '--save-dev', '--prefer-offline', '--no-audit', '--no-fund'];
  if (Number(process.versions.napi) >= 10) args.push('--ignore-scripts');
  let t = Date.now();
  npm([...args, join(work, tarball), ...runners], project);
  say(`${tarball} and ${runners.join(', ')} installed with Node ${process.version} in ${secs(t)}`);

  const failures = [];
  for (const recipe of recipes) {
    const dir = join(project, recipe.name);
    // From the installed package: the recipes a user copies are the ones the tarball ships.
    cpSync(join(project, 'node_modules', 'mockingbird-server', 'examples', 'testing', recipe.name), dir, {
      recursive: true,
    });
    const runEnv = { ...env };
    if (recipe.name === 'playwright') runEnv.MOCKINGBIRD_PORT = String(await freePort());
    t = Date.now();
    const r = spawnSync(recipe.command, {
      shell: true,
      cwd: dir,
      env: runEnv,
      encoding: 'utf8',
      timeout: 300_000,
    });
    const out = `${r.stdout}\n${r.stderr}`;
    const m = recipe.passed.exec(out);
    const passed = m ? Number(m[1]) : 0;
    if (r.status === 0 && passed === recipe.tests) {
      say(`${recipe.name}: ${passed} passed in ${secs(t)} (${recipe.command})`);
      continue;
    }
    const why = r.error
      ? r.error.message
      : r.status !== 0
        ? `exit code ${r.status}`
        : `${passed} passed, expected ${recipe.tests}`;
    failures.push(recipe.name);
    console.error(`check-recipes: the ${recipe.name} recipe FAILED (${why}); its output:\n${out}`);
  }
  assert.deepEqual(failures, [], `recipes that failed: ${failures.join(', ')}`);
  say(`passed in ${secs(started)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

function secs(since) {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}
