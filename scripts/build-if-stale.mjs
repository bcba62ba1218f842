// `npm start` runs this first: it builds only when the build is missing or older than its inputs, so
// that a built checkout starts in well under a second instead of waiting ~10 s for the compiler.
//
//   node scripts/build-if-stale.mjs            build (npm run build) when stale, else do nothing
//   node scripts/build-if-stale.mjs --check    exit 0 when the build is current, 1 when stale
//   node scripts/build-if-stale.mjs --stamp    record that the build is current (end of npm run build)
//   --root <dir>                               another checkout (tests)
//
// Inputs: every file under src/ and web/ (when present), package.json, package-lock.json and
// tsconfig*.json. The stamp (dist/.build-stamp) holds the newest input mtime seen when the build
// finished; a file changed since (an edit, a git checkout, an npm install) makes the build stale.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const rootAt = args.indexOf('--root');
const root = resolve(rootAt >= 0 ? args[rootAt + 1] : join(dirname(fileURLToPath(import.meta.url)), '..'));
const stampFile = join(root, 'dist', '.build-stamp');
const SKIP = new Set(['node_modules', 'dist', '.git']);

/** The newest mtime (ms) of the files under `p`, or 0. */
function newest(p) {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = 0;
  for (const name of readdirSync(p)) if (!SKIP.has(name)) max = Math.max(max, newest(join(p, name)));
  return max;
}

function newestInput() {
  const top = readdirSync(root).filter((n) => /^tsconfig.*\.json$/.test(n));
  return Math.max(
    ...['src', 'web', 'package.json', 'package-lock.json', ...top].map((n) => newest(join(root, n))),
  );
}

function isCurrent() {
  if (!existsSync(stampFile) || !existsSync(join(root, 'dist', 'cli.js'))) return false;
  const stamped = Number(readFileSync(stampFile, 'utf8').trim());
  return Number.isFinite(stamped) && newestInput() <= stamped;
}

if (args.includes('--stamp')) {
  mkdirSync(dirname(stampFile), { recursive: true });
  writeFileSync(stampFile, `${newestInput()}\n`);
} else if (args.includes('--check')) {
  process.exit(isCurrent() ? 0 : 1);
} else if (!isCurrent()) {
  console.error('mockingbird: the build is missing or older than the sources; building (npm run build)…');
  const npm = process.env.npm_execpath;
  const res = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], {
        cwd: root,
        stdio: 'inherit',
        shell: process.platform === 'win32',
      });
  process.exit(res.status ?? 1);
}
