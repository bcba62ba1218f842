/** The import check (scripts/check-imports.mjs): the real tree passes; a cycle and a deep import are reported. */
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
  return { status: r.status, out: r.stdout + r.stderr };
}

/** A tree of files in a temporary directory: path → content. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'mb-imports-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

void test('src/ has no import cycle and no deep import into another folder', () => {
  const r = check();
  assert.equal(r.status, 0, r.out);
});

void test('a cycle and a deep import are each reported with the file and the import', () => {
  const dir = tree({
    'a/index.ts': "export { x } from './x.js';\n",
    'a/x.ts': "import { y } from '../b/y.js';\nexport const x = 1 + y;\n",
    'b/index.ts': "export { y } from './y.js';\n",
    'b/y.ts': "import { x } from '../a/index.js';\nexport const y = x;\n",
  });
  try {
    const r = check(dir);
    assert.equal(r.status, 1);
    const lines = r.out.trim().split('\n');
    assert.equal(lines.length, 2, r.out);
    assert.ok(
      lines.some((l) => l.startsWith("a/x.ts: deep import '../b/y.js'")),
      r.out,
    );
    assert.ok(
      lines.some(
        (l) => l.includes('import cycle') && l.includes('a/index.ts → a/x.ts → b/y.ts → a/index.ts'),
      ),
      r.out,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('type-only imports do not make a cycle; root files, index files and subfolders are allowed', () => {
  const dir = tree({
    'config.ts': "import type { Thing } from './a/index.js';\nexport const config: Thing[] = [];\n",
    'a/index.ts': "export type { Thing } from './model/thing.js';\nexport { config } from '../config.js';\n",
    'a/model/thing.ts':
      "import { helper } from '../util.js';\nexport interface Thing { n: number }\nhelper();\n",
    'a/util.ts': "import { z } from '../b/index.js';\nexport const helper = () => z;\n",
    'b/index.ts': "import type { Thing } from '../a/index.js';\nexport const z: Thing | 0 = 0;\n",
  });
  try {
    const r = check(dir);
    assert.equal(r.status, 0, r.out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
