/**
 * docs/testing.md and the recipes CI runs cannot drift: every file of each recipe folder
 * (examples/testing/<runner>/) is shown in the doc verbatim, after a comment naming it; every file the
 * doc names that way exists; every folder is a recipe of scripts/check-recipes.mjs; and each recipe's
 * command, as that script runs it, is a shell block of the doc marked as run by it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const DOC = 'docs/testing.md';
const ROOT = 'examples/testing';
const doc = readFileSync(DOC, 'utf8');
const script = readFileSync('scripts/check-recipes.mjs', 'utf8');

const folders = readdirSync(ROOT).filter((name) => statSync(join(ROOT, name)).isDirectory());
const files = folders.flatMap((folder) =>
  readdirSync(join(ROOT, folder)).map((f) => `${ROOT}/${folder}/${f}`),
);

/** The code block right after `<!-- file -->` and one blank line, with its fence's language. */
function shownBlock(file: string): { lang: string; code: string } | undefined {
  const marker = `<!-- ${file} -->\n\n\`\`\``;
  const at = doc.indexOf(marker);
  if (at < 0) return undefined;
  const langEnd = doc.indexOf('\n', at + marker.length);
  const end = doc.indexOf('\n```\n', langEnd);
  return { lang: doc.slice(at + marker.length, langEnd), code: doc.slice(langEnd + 1, end + 1) };
}

test('the three recipes are folders of examples/testing', () => {
  assert.deepEqual(folders.sort(), ['jest', 'playwright', 'vitest']);
  assert.ok(files.length >= 9, `recipe files: ${files.join(', ')}`);
});

test(`${DOC} shows every recipe file verbatim, in a block of its language`, () => {
  for (const file of files) {
    const shown = shownBlock(file);
    assert.ok(shown, `${DOC} has no block for ${file}`);
    assert.equal(shown.lang, file.endsWith('.ts') ? 'ts' : 'js', `the language of ${file}'s block`);
    assert.equal(shown.code, readFileSync(file, 'utf8'), `${DOC} differs from ${file}`);
  }
});

test(`every example file ${DOC} names exists`, () => {
  const named = [...doc.matchAll(/<!-- (examples\/[^ ]+) -->/g)].map((m) => m[1]);
  assert.ok(named.length >= files.length);
  for (const file of named)
    assert.ok(files.includes(file!), `${DOC} names ${file}, which is not a recipe file`);
});

test('scripts/check-recipes.mjs runs every recipe folder, with the command the doc shows', () => {
  const recipes = [...script.matchAll(/name: '([^']+)',\s*(?:\/\/[^\n]*\s*)*command: '([^']+)'/g)].map(
    (m) => ({
      name: m[1]!,
      command: m[2]!,
    }),
  );
  assert.deepEqual(recipes.map((r) => r.name).sort(), folders.sort());
  const runBlocks = [
    ...doc.matchAll(/<!-- run: scripts\/check-recipes\.mjs -->\n\n```sh\n([^`]*)```\n/g),
  ].map((m) => m[1]);
  assert.equal(runBlocks.length, recipes.length, 'one shell block a recipe, marked as run by the script');
  for (const { name, command } of recipes)
    assert.ok(runBlocks.includes(`${command}\n`), `${DOC} shows ${name}'s command \`${command}\``);
  // The marker convention: the script that runs a doc's commands names that doc.
  assert.match(script, /docs\/testing\.md/);
});
