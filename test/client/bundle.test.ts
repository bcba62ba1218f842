/**
 * The client loads nothing of the server at run time: following its value imports from
 * src/client/index.ts reaches only src/client/ files and the eventsource-parser package (type-only
 * imports are erased). Fastify, SQLite or the store in a test runner's bundle would be a bug.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import ts from 'typescript';

const CLIENT = resolve('src/client');
const ALLOWED_PACKAGES = new Set(['eventsource-parser', 'eventsource-parser/stream']);

function valueImports(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      if (st.importClause?.isTypeOnly) continue;
      out.push(st.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
      if (st.isTypeOnly) continue;
      out.push(st.moduleSpecifier.text);
    }
  }
  return out;
}

test('the client reaches only its own files and eventsource-parser at run time', () => {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const todo = [resolve(CLIENT, 'index.ts')];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    assert.ok(file.startsWith(CLIENT + '/'), `the client loads ${file}`);
    for (const spec of valueImports(file)) {
      if (spec.startsWith('.')) todo.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else packages.add(spec);
    }
  }
  for (const p of packages)
    assert.ok(ALLOWED_PACKAGES.has(p) || p.startsWith('node:'), `the client loads ${p}`);
  assert.ok(seen.size >= 5);
});
