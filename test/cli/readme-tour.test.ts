/**
 * The README's curl tour, run as written: its first two shell blocks (the echo, then the API: an endpoint,
 * a templated rule, the request, the history, a purge, a TOTP code) go to bash with curl against a real
 * `mockingbird serve` on this Node (so each CI leg, Node 20 and Node 24, runs them), only the port and
 * the key put in. Each answer is checked against what the README says it is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveCli } from '../helpers/cli.js';
import { shellBlocks } from '../helpers/doc-blocks.js';

const KEY = 'mb_test_key_readme_tour_0123456789abcdef';
const SEPARATOR = '<<<answer>>>';

/**
 * The shell blocks of the README's "A tour with curl" section marked as run by this test (`<!-- run:
 * test/cli/readme-tour.test.ts -->`, test/helpers/doc-blocks.ts), in order.
 */
function tourBlocks(): string[] {
  const readme = readFileSync('README.md', 'utf8');
  const from = readme.indexOf('## A tour with curl');
  const to = readme.indexOf('\n## ', from + 1);
  assert.ok(from >= 0 && to > from, 'the README has its tour');
  const fromLine = readme.slice(0, from).split('\n').length;
  const toLine = readme.slice(0, to).split('\n').length;
  return shellBlocks('README.md', readme)
    .filter((b) => b.line > fromLine && b.line < toLine)
    .filter((b) => b.marker.kind === 'run' && b.marker.path === 'test/cli/readme-tour.test.ts')
    .map((b) => `${b.body}\n`);
}

/** Runs a README block with bash, every curl answer followed by a separator line; returns the answers. */
function run(block: string, port: number): unknown[] {
  const script = block.replace(/^KEY=.*$/m, '').replaceAll(':8080', `:${port}`);
  const r = spawnSync(
    'bash',
    [
      '-c',
      `set -euo pipefail\ncurl() { command curl --max-time 10 "$@"; printf '\\n${SEPARATOR}\\n'; }\n${script}`,
    ],
    { env: { ...process.env, KEY }, encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  return r.stdout
    .split(`${SEPARATOR}\n`)
    .slice(0, -1)
    .map((text) => JSON.parse(text) as unknown);
}

test("the README's curl tour answers as the README says", { timeout: 90_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mb-tour-'));
  const server = await serveCli({ DATA_DIR: dataDir, MOCKINGBIRD_API_KEY: KEY });
  try {
    const blocks = tourBlocks();
    assert.equal(blocks.length, 2, 'the tour marks two blocks as run here: the echo, then the API');
    const [echoBlock, apiBlock] = blocks as [string, string];

    const [echo] = run(echoBlock, server.port) as [Record<string, unknown>];
    assert.equal(echo['method'], 'POST');
    assert.equal(echo['host'], `localhost:${server.port}`);
    assert.equal(echo['path'], '/users?id=1&id=2');
    assert.deepEqual(echo['parsedQueryParams'], { id: ['1', '2'] });
    assert.deepEqual(echo['parsedBody'], { name: 'Ada' });

    const answers = run(apiBlock, server.port) as Record<string, unknown>[];
    assert.equal(answers.length, 6, 'six curl calls');
    const [endpoint, rule, user, history, purge, totp] = answers as [
      { name: string },
      { id: string },
      { id: string; name: string },
      { data: { behavior: string; rule: { ruleId?: string }; path: string }[] },
      Record<string, unknown>,
      { otp: string },
    ];
    assert.equal(endpoint.name, 'shop');
    assert.equal(typeof rule.id, 'string');
    assert.equal(user.id, '7');
    assert.match(user.name, /^\S+$/, 'a fake first name');
    assert.equal(history.data[0]?.behavior, 'mock-rule');
    assert.equal(history.data[0]?.rule.ruleId, rule.id);
    assert.equal(history.data[0]?.path, '/users/7');
    assert.equal(typeof purge, 'object', 'the purge answers JSON');
    assert.match(totp.otp, /^\d{6}$/);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});
