// Runs every test file under test/ with node:test, TypeScript loaded through tsx.
// A file list is built here because Node 20's `--test` does not expand globs.
//
// Files that time the event loop (a probe from another client, monitorEventLoopDelay) say `@runs-alone`
// in their opening comment. They run after the others, one at a time: two test files share the two
// cores of a CI machine, and a neighbour that starts a cluster of instances stalls the probe as surely
// as the server under test would, which made those bounds fail on a loaded run and pass on a quiet one.
import { readdirSync, readFileSync, statSync } from 'node:fs';
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

/** The marker, looked for in the file's opening comment only. */
const runsAlone = (file) => /@runs-alone\b/.test(readFileSync(file, 'utf8').slice(0, 4096));

function run(files, concurrency) {
  if (files.length === 0) return 0;
  const res = spawnSync(
    process.execPath,
    // A test that hangs fails its file after five minutes, instead of holding the whole run (and CI).
    [
      '--import',
      'tsx',
      '--test',
      `--test-concurrency=${concurrency}`,
      '--test-timeout=300000',
      '--test-reporter=spec',
      ...files,
    ],
    { stdio: 'inherit' },
  );
  return res.status ?? 1;
}

const filter = process.argv.slice(2);
let files = collect('test').sort();
if (filter.length > 0) files = files.filter((f) => filter.some((x) => f.includes(x)));
const alone = files.filter(runsAlone);
const together = files.filter((f) => !alone.includes(f));
const first = run(together, 2);
if (alone.length > 0) console.log(`\nThe ${alone.length} files that time the event loop, one at a time:`);
const second = run(alone, 1);
process.exit(first || second);
