/**
 * The docs' runnable shell blocks, run as written: every block marked `<!-- run: test/cli/doc-examples.test.ts
 * -->` in the files below goes to bash with curl against a real `mockingbird serve`, the blocks of one file
 * in order in one shell (so a block's variables and functions serve the next), only the port and the key
 * put in (`:8080` becomes the server's port, `mb_…` its admin key, and MOCKINGBIRD_URL names it for the
 * client commands). `mockingbird …` and `npm start -- …` run the CLI of this checkout, on that port.
 *
 * Each curl must answer below 400, and an answer written in the doc as a comment after the curl (`# {"id":
 * "7"}`, on its line or the next; `# 201 {…}` with a status) must be the answer given, whitespace aside and
 * `…` standing for anything. A doc whose blocks call a tool this machine lacks (docs/mtls.md: openssl, jq)
 * is skipped with a message naming it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CLI, childEnv, serveCli } from '../helpers/cli.js';
import { blockScript, shellBlocks, type ShellBlock } from '../helpers/doc-blocks.js';

const SELF = 'test/cli/doc-examples.test.ts';
const KEY = 'mb_test_key_doc_examples_0123456789abcdef';
const TSX = import.meta.resolve('tsx');
const AUTH = '-H "Authorization: Bearer $MOCKINGBIRD_API_KEY"';

/**
 * For a block that uses the endpoint "shop" (a path `/shop`) without creating it: creates it through the
 * doc's own `$API` (409 when it exists; nothing while no server is up).
 */
function ensureShop(block: ShellBlock): string {
  if (!block.body.includes('/shop') || block.body.includes(`'{"name":"shop"}'`)) return '';
  return `command curl -sk -o /dev/null -X POST "\${API:-http://localhost:8080/api/v2}/endpoints" ${AUTH} -H 'content-type: application/json' -d '{"name":"shop"}' || true`;
}

/**
 * The files whose blocks this test runs, and what it does before each block (through the server's API,
 * written here rather than in the doc because the doc's examples each stand alone).
 */
const DOCS: Record<string, { between?: (block: ShellBlock) => string; needs?: string[] }> = {
  // The mocks-as-code block starts its own server (npm start -- --config examples/mockingbird.yaml).
  'README.md': {},
  // The examples are of the endpoint "shop" of the README's tour; one of them deletes it.
  'docs/api.md': { between: ensureShop },
  'docs/api-history.md': { between: ensureShop },
  // Its blocks make a self-signed pair and start the server with it; the examples are of "shop".
  'docs/mtls.md': { between: ensureShop, needs: ['openssl', 'jq'] },
  // Each example adds one rule to a fresh list.
  'docs/rules.md': {
    between: () =>
      `command curl -s -o /dev/null -X DELETE "http://localhost:8080/api/v2/endpoints/shop/rules" ${AUTH}`,
  },
  'docs/stateful.md': {},
  'docs/totp.md': {},
};

const PRELUDE = `set -euo pipefail
MB_N=0
curl() {
  MB_N=$((MB_N + 1))
  printf '%s\\n' "$*" > "$MB_LOG/$MB_N.args"
  command curl -sS --max-time 10 -o "$MB_LOG/$MB_N.body" -w '%{http_code}' "$@" > "$MB_LOG/$MB_N.status"
  cat "$MB_LOG/$MB_N.body"
}
mb_expect() { printf '%s' "$MB_N" > "$MB_LOG/expect.$1"; }
mb_block() { printf '%s' "$MB_N" > "$MB_LOG/block.$1"; }
mb_serve() {
  node --import "$MB_TSX" "$MB_CLI" serve --port "$MB_PORT" --data-dir "$MB_DATA" "$@" > "$MB_LOG/server.log" 2>&1 &
  for _ in $(seq 150); do
    command curl -s -o /dev/null "http://127.0.0.1:$MB_PORT/" && return 0
    command curl -sk -o /dev/null "https://127.0.0.1:$MB_PORT/" && return 0
    sleep 0.2
  done
  echo "the server did not start: $(cat "$MB_LOG/server.log")" >&2
  return 1
}
mockingbird() { if [ "\${1:-}" = serve ]; then shift; mb_serve "$@"; else node --import "$MB_TSX" "$MB_CLI" "$@"; fi; }
npm() {
  if [ "\${1:-}" = start ]; then shift; if [ "\${1:-}" = -- ]; then shift; fi; mb_serve "$@"; else command npm "$@"; fi
}
trap 'kill $(jobs -p) 2>/dev/null || true; wait' EXIT
`;

/** An answer written as a comment: `{…}`, `[…]`, or a status and then the body (`# 404 nope`). */
const ANSWER = /^(\d{3}\s+\S|[[{])/;

/**
 * A block's script with `mb_expect i` after each command whose answer the doc writes as a comment;
 * `expected` collects those answers.
 */
function instrument(script: string, expected: string[]): string {
  const out: string[] = [];
  const lines = script.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const own = /^\s*#\s?(.*)$/.exec(line);
    const trailing = own ? undefined : /\s#\s+(.*)$/.exec(line);
    const text = (own ?? trailing)?.[1]?.trim();
    out.push(line);
    if (text === undefined || !ANSWER.test(text)) continue;
    let answer = text;
    // A long answer goes on over comment lines indented by two spaces or more (`#  "conditions": …`).
    while (own && /^\s*#\s{2,}\S/.test(lines[i + 1] ?? '')) {
      i++;
      out.push(lines[i]!);
      answer += lines[i]!.replace(/^\s*#/, '');
    }
    out.push(`mb_expect ${expected.length}`);
    expected.push(answer);
  }
  return out.join('\n');
}

/** Whether `body` (answered with `status`) is the answer the doc writes; `…` stands for anything. */
function sameAnswer(written: string, status: number, body: string): boolean {
  const m = /^(\d{3})\s+([\s\S]*)$/.exec(written);
  if (m && Number(m[1]) !== status) return false;
  const squash = (s: string): string => s.replace(/\s+/g, '');
  const parts = squash(m ? m[2]! : written)
    .split('…')
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*')}$`).test(squash(body));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function blocksOf(file: string): ShellBlock[] {
  return shellBlocks(file, readFileSync(file, 'utf8')).filter(
    (b) => b.marker.kind === 'run' && b.marker.path === SELF,
  );
}

test('this test runs the blocks of exactly the files it lists', () => {
  const docs = ['README.md', ...readdirSync('docs').map((f) => `docs/${f}`)].filter((f) => f.endsWith('.md'));
  assert.deepEqual(
    docs.filter((f) => blocksOf(f).length > 0),
    Object.keys(DOCS).sort((a, b) => (a === 'README.md' ? -1 : b === 'README.md' ? 1 : a.localeCompare(b))),
  );
});

for (const [file, around] of Object.entries(DOCS)) {
  test(
    `${file}: the shell blocks marked for this test answer as the doc says`,
    { timeout: 120_000 },
    async (t) => {
      const missing = (around.needs ?? []).filter(
        (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status !== 0,
      );
      if (missing.length > 0) {
        t.skip(`${file}'s blocks need ${missing.join(' and ')} on PATH`);
        return;
      }
      const blocks = blocksOf(file);
      assert.ok(blocks.length > 0, `${file} has blocks marked run: ${SELF}`);
      // The blocks run in a folder of their own (files they write stay there) that sees examples/.
      const dir = mkdtempSync(join(tmpdir(), 'mb-doc-'));
      const log = join(dir, 'log');
      const data = join(dir, 'data');
      mkdirSync(log);
      mkdirSync(data);
      symlinkSync(resolve('examples'), join(dir, 'examples'));
      const ownServer = blocks.some((b) => /\b(npm start|mockingbird serve)\b/.test(blockScript(b)));
      const server = ownServer ? undefined : await serveCli({ DATA_DIR: data, MOCKINGBIRD_API_KEY: KEY });
      const port = server?.port ?? (await freePort());
      try {
        const expected: string[] = [];
        const put = (s: string): string =>
          s.replaceAll(':8080', `:${port}`).replaceAll(':8443', `:${port}`).replaceAll('mb_…', KEY);
        const parts = [PRELUDE];
        blocks.forEach((b, i) => {
          parts.push(
            `mb_block ${i}`,
            put(around.between?.(b) ?? ''),
            instrument(put(blockScript(b)), expected),
          );
        });
        const r = spawnSync('bash', ['-c', parts.join('\n')], {
          env: childEnv({
            MOCKINGBIRD_API_KEY: KEY,
            MOCKINGBIRD_URL: `http://localhost:${port}`,
            LOG_LEVEL: 'warn',
            MB_LOG: log,
            MB_DATA: data,
            MB_PORT: String(port),
            MB_CLI: CLI,
            MB_TSX: TSX,
          }),
          cwd: dir,
          encoding: 'utf8',
          timeout: 100_000,
        });

        // The blocks begun, each with the number of curls sent before it; which block a curl belongs to.
        const starts = blocks
          .map((_, i) => join(log, `block.${i}`))
          .filter((f) => existsSync(f))
          .map((f) => Number(readFileSync(f, 'utf8')));
        const where = (n: number): string => {
          let i = 0;
          while (i + 1 < starts.length && starts[i + 1]! < n) i++;
          return `${file}:${blocks[i]!.line}`;
        };
        const ran = starts.length;
        assert.equal(r.status, 0, `bash stopped in ${file}:${blocks[ran - 1]?.line}: ${r.stderr}`);
        assert.equal(ran, blocks.length);

        const curls = readdirSync(log).filter((f) => /^\d+\.status$/.test(f)).length;
        const expectedOf = new Map<number, string>();
        expected.forEach((text, i) => {
          const n = Number(readFileSync(join(log, `expect.${i}`), 'utf8'));
          assert.ok(n > 0, `${file}: the answer "${text}" follows no curl`);
          expectedOf.set(n, text);
        });
        const problems: string[] = [];
        for (let n = 1; n <= curls; n++) {
          const status = Number(readFileSync(join(log, `${n}.status`), 'utf8'));
          const body = readFileSync(join(log, `${n}.body`), 'utf8');
          const args = readFileSync(join(log, `${n}.args`), 'utf8').trim();
          const written = expectedOf.get(n);
          const say = (why: string): void =>
            void problems.push(
              `${where(n)}: curl ${args}\n  ${why}; it answered ${status}: ${body.slice(0, 300)}`,
            );
          if (written !== undefined && !sameAnswer(written, status, body)) say(`the doc says ${written}`);
          else if (written === undefined || !/^\d{3}\s/.test(written)) {
            if (status >= 400) say('an error');
          }
        }
        assert.equal(problems.join('\n'), '');
        assert.ok(curls > 0, `${file}'s blocks sent requests`);
      } finally {
        if (server) {
          server.child.kill('SIGTERM');
          await server.exited;
        }
        if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
      }
    },
  );
}

test('a written answer matches with … for anything and whitespace aside, and a status when it gives one', () => {
  assert.ok(sameAnswer('{"id": "42", "name": "…"}', 200, '{"id":"42","name":"Ada"}'));
  assert.ok(sameAnswer('201 {"id":1}', 201, '{"id":1}'));
  assert.ok(!sameAnswer('201 {"id":1}', 200, '{"id":1}'));
  assert.ok(!sameAnswer('{"id":"7"}', 200, '{"id":"8"}'));
  assert.ok(!sameAnswer('{"a":1}', 200, '{"a":1,"b":2}'));
});
