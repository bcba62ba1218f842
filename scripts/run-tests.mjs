// Runs every test file under test/ with node:test, TypeScript loaded through tsx.
// A file list is built here because Node 20's `--test` does not expand globs.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...collect(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const filter = process.argv.slice(2);
let files = collect('test').sort();
if (filter.length > 0) files = files.filter((f) => filter.some((x) => f.includes(x)));
const res = spawnSync(
  process.execPath,
  // A test that hangs fails its file after five minutes, instead of holding the whole run (and CI).
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=2',
    '--test-timeout=300000',
    '--test-reporter=spec',
    ...files,
  ],
  { stdio: 'inherit' },
);
process.exit(res.status ?? 1);
