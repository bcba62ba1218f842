/**
 * The Node lines we run on: the start-up check refuses every other line with one line on stderr (the
 * Node version and what to do), before any native module loads; package.json's `engines` says the same
 * lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SUPPORTED_NODE, unsupportedNode } from '../../src/supported-node.js';
import { runCli } from '../helpers/cli.js';

test('the supported lines: 20.19+, 22.12+ and 24+; not 18, 21, 23 or an early 20 or 22', () => {
  for (const v of ['20.19.0', '20.20.2', '22.12.0', '22.23.3', '24.0.0', '24.21.0', '25.2.1'])
    assert.equal(unsupportedNode(v), undefined, v);
  for (const v of ['16.20.2', '18.20.4', '20.18.3', '21.7.3', '22.11.0', '23.11.1', '19.0.0']) {
    const problem = unsupportedNode(v);
    assert.ok(problem, v);
    assert.match(problem, new RegExp(`this is Node\\.js ${v.replace(/\./g, '\\.')}\\.`));
    assert.match(problem, /Install Node\.js 24 LTS/);
    assert.doesNotMatch(problem, /\n/);
  }
});

test("package.json's engines names the lines the start-up check accepts", () => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
  assert.equal(pkg.engines.node, SUPPORTED_NODE);
});

test('on an unsupported Node the CLI stops with one line and exit 1, before loading the store', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mb-node-line-'));
  try {
    // Pretends to be Node 18 before the CLI's first module is evaluated.
    const preload = join(dir, 'old-node.mjs');
    writeFileSync(preload, "Object.defineProperty(process.versions, 'node', { value: '18.20.4' });\n");
    const r = await runCli(['serve', '--port', '0'], {
      DATA_DIR: join(dir, 'data'),
      NODE_OPTIONS: `--import=${preload}`,
    });
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(
      lines[0]!,
      /^mockingbird: Mockingbird runs on Node\.js 24 LTS.*this is Node\.js 18\.20\.4\./,
    );
    assert.throws(() => readFileSync(join(dir, 'data', 'mockingbird.db')), 'no database was created');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
