/**
 * The import check (scripts/check-imports.mjs): the real tree passes; a cycle (type-only imports
 * counted), a deep import, an import against the layers and a folder without a row are each reported.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../scripts/check-imports.mjs', import.meta.url));

function check(...args: string[]) {
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr, lines: r.stderr.trim().split('\n').filter(Boolean) };
}

/** Runs the check on a tree of files in a temporary directory (path → content), then removes it. */
function checkTree(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'mb-imports-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return check(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void test('src/ has no import cycle, no deep import and no import against the layers', () => {
  const r = check();
  assert.equal(r.status, 0, r.out);
});

void test('a cycle made of type-only imports is reported, with the file, the import and the chain', () => {
  const r = checkTree({
    'mock/index.ts': "export type { A } from './a.js';\n",
    'mock/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
    'mock/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
  });
  assert.equal(r.status, 1, r.out);
  assert.deepEqual(r.lines, [
    "mock/a.ts: import './b.js' is part of an import cycle: mock/a.ts → mock/b.ts → mock/a.ts",
  ]);
});

void test('an import up the layers is reported, type-only or not, naming both rows', () => {
  const r = checkTree({
    'mock/index.ts': 'export interface MockDeps { n: number }\n',
    'serve/index.ts': 'export const door = 1;\n',
    'store/index.ts':
      "import type { MockDeps } from '../mock/index.js';\nexport const deps: MockDeps[] = [];\n",
    'http/index.ts': "import { door } from '../serve/index.js';\nexport const h = door;\n",
  });
  assert.equal(r.status, 1, r.out);
  assert.deepEqual(r.lines.sort(), [
    "http/index.ts: import '../serve/index.js' runs against the layers: http (row 11) imports only rows below it, and serve is on row 5",
    "store/index.ts: import type '../mock/index.js' runs against the layers: store (row 12) imports only rows below it, and mock is on row 6",
  ]);
});

void test('two folders on one row may not import each other', () => {
  const r = checkTree({
    'mock/index.ts': "import { e } from '../echo/index.js';\nexport const m = e;\n",
    'echo/index.ts': 'export const e = 1;\n',
  });
  assert.equal(r.status, 1, r.out);
  assert.equal(r.lines.length, 1, r.out);
  assert.match(r.lines[0]!, /^mock\/index\.ts: import '\.\.\/echo\/index\.js' runs against the layers/);
});

void test('a cross-folder cycle through a deep import is reported three ways', () => {
  const r = checkTree({
    'endpoint/index.ts': "export { x } from './x.js';\n",
    'endpoint/x.ts': "import { y } from '../mock/y.js';\nexport const x = 1 + y;\n",
    'mock/index.ts': "export { y } from './y.js';\n",
    'mock/y.ts': "import { x } from '../endpoint/index.js';\nexport const y = x;\n",
  });
  assert.equal(r.status, 1, r.out);
  assert.equal(r.lines.length, 3, r.out);
  assert.ok(
    r.lines.includes("endpoint/x.ts: deep import '../mock/y.js' (import mock/ through mock/index.js)"),
    r.out,
  );
  assert.ok(
    r.lines.some((l) => l.startsWith("endpoint/x.ts: import '../mock/y.js' runs against the layers")),
    r.out,
  );
  assert.ok(
    r.lines.some(
      (l) =>
        l.includes('import cycle') &&
        l.includes('endpoint/index.ts → endpoint/x.ts → mock/y.ts → endpoint/index.ts'),
    ),
    r.out,
  );
});

void test('a folder or root file without a row in the layers is reported', () => {
  const r = checkTree({ 'gadgets/index.ts': 'export const g = 1;\n', 'extra.ts': 'export const e = 1;\n' });
  assert.equal(r.status, 1, r.out);
  assert.deepEqual(r.lines, [
    'extra.ts: has no row in LAYERS (scripts/check-imports.mjs): say where it stands',
    'gadgets: has no row in LAYERS (scripts/check-imports.mjs): say where it stands',
  ]);
});

void test('imports down the layers pass: root files, index files, subfolders, type-only and not', () => {
  const r = checkTree({
    'config.ts': "import { parseCidr } from './outbound/index.js';\nexport const config = parseCidr;\n",
    'outbound/index.ts': 'export const parseCidr = (s: string) => s;\nexport type Cidr = string;\n',
    'mock/index.ts':
      "export type { Thing } from './model/thing.js';\nexport { config } from '../config.js';\n",
    'mock/model/thing.ts':
      "import { helper } from '../util.js';\nexport interface Thing { n: number }\nhelper();\n",
    'mock/util.ts': "import { z } from '../store/index.js';\nexport const helper = () => z;\n",
    'store/index.ts': "import type { Cidr } from '../outbound/index.js';\nexport const z: Cidr | 0 = 0;\n",
    'server.ts': "import type { Thing } from './mock/index.js';\nexport const t: Thing[] = [];\n",
  });
  assert.equal(r.status, 0, r.out);
});
