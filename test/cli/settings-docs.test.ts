/**
 * `mockingbird serve --help` (built from SETTINGS), docs/configuration.md and the README name the same
 * settings: every setting has a row with its variable and flag in docs/configuration.md, that table
 * names no other variable, and the README's short table only names settings. REDIS_URL, which is
 * only checked today, is described the same way in all three.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SETTINGS } from '../../src/config.js';

/** The first table of a Markdown text whose header starts with `| variable`: its rows' first two cells. */
function settingsTable(md: string): { vars: string[]; flag: string }[] {
  const lines = md.split('\n');
  const start = lines.findIndex((l) => /^\| variable\s/.test(l));
  assert.ok(start >= 0, 'no settings table');
  const rows: { vars: string[]; flag: string }[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const [first = '', second = ''] = line.split('|').slice(1);
    rows.push({ vars: [...first.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!), flag: second.trim() });
  }
  return rows;
}

test('docs/configuration.md lists every setting of --help with its flag, and nothing else', () => {
  const rows = settingsTable(readFileSync('docs/configuration.md', 'utf8'));
  const byVar = new Map(rows.flatMap((r) => r.vars.map((v) => [v, r.flag] as const)));
  for (const s of SETTINGS) {
    assert.ok(byVar.has(s.env), `docs/configuration.md has no row for ${s.env}`);
    assert.match(byVar.get(s.env)!, new RegExp(`--${s.flag}\\b`), `${s.env}'s flag is --${s.flag}`);
  }
  const known = new Set(SETTINGS.map((s) => s.env));
  for (const v of byVar.keys())
    assert.ok(known.has(v), `docs/configuration.md lists ${v}, which is no setting`);
});

test("the README's settings table names only settings", () => {
  const known = new Set(SETTINGS.map((s) => s.env));
  for (const row of settingsTable(readFileSync('README.md', 'utf8')))
    for (const v of row.vars) assert.ok(known.has(v), `README lists ${v}, which is no setting`);
});

// Issue 33 reverses what this test held before (REDIS_URL "pinged at start; instances do not share state
// through it yet"): the three places now say what instances share through it.
test('REDIS_URL is described as what instances coordinate through, in --help, README and docs/configuration.md', () => {
  const help = SETTINGS.find((s) => s.env === 'REDIS_URL')!.help;
  assert.match(help, /instances coordinate/);
  assert.doesNotMatch(help, /not share state/);
  for (const file of ['README.md', 'docs/configuration.md']) {
    const row = readFileSync(file, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('| `REDIS_URL`'));
    assert.ok(row, `${file} has a REDIS_URL row`);
    assert.match(row, /instances coordinate/, `${file} says what REDIS_URL does`);
    assert.match(row, /deploy\.md/, `${file} points to the deployment guide`);
    assert.doesNotMatch(row, /not share state/, `${file} no longer says instances share nothing`);
  }
});
