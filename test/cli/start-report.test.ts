/**
 * What a person sees at a terminal: readable request lines on a TTY (JSON lines in a pipe, or as
 * LOG_FORMAT says), a banner naming the dashboard, the echo, the configuration file loaded with its
 * endpoints, the data and how to make a key; and start errors that name the URL that failed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prettyLine } from '../../src/log-pretty.js';
import { safeUrl } from '../../src/start-report.js';
import { CLI, childEnv, runCli, serveCli } from '../helpers/cli.js';

/** The escape character that starts an ANSI colour code. */
const ESC = '\\u001b';

test('prettyLine: a request line, a warning with its fields, and text that is not JSON', () => {
  const t = Date.UTC(2026, 10, 26, 12, 3, 4, 567);
  const req = JSON.stringify({
    level: 30,
    time: t,
    pid: 1,
    hostname: 'h',
    method: 'GET',
    host: 'localhost:8080',
    url: '/e/echo/x?a=1',
    status: 404,
    ms: 1.5,
    msg: 'request',
  });
  assert.equal(prettyLine(req, false), '12:03:04.567 GET    404 localhost:8080/e/echo/x?a=1 1.50 ms');
  const coloured = prettyLine(req, true);
  assert.match(coloured, new RegExp(`${ESC}\\[33m404${ESC}\\[39m`), '4xx in yellow');
  const warn = JSON.stringify({
    level: 40,
    time: t,
    msg: 'config reload failed',
    file: 'a b.yaml',
    count: 2,
    err: { type: 'Error', message: 'bad' },
  });
  assert.equal(
    prettyLine(warn, false),
    '12:03:04.567 WARN  config reload failed file="a b.yaml" count=2 err="Error: bad"',
  );
  assert.equal(prettyLine('not json', false), 'not json');
});

test('safeUrl hides a password and keeps the rest', () => {
  assert.equal(safeUrl('postgres://u:secret@db:5432/x'), 'postgres://u:***@db:5432/x');
  assert.equal(safeUrl('redis://127.0.0.1:6379/0'), 'redis://127.0.0.1:6379/0');
});

/** Runs `serve` under `script` (a pseudo-terminal), makes one request, and answers what it printed. */
async function onTerminal(env: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'mb-tty-'));
  const cmd = `exec ${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(CLI)} serve --port 0`;
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], {
    env: childEnv({ DATA_DIR: dir, LOG_LEVEL: 'info', ...env }),
  });
  let out = '';
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 20_000);
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
    });
    await (await fetch(`http://127.0.0.1:${port}/e/echo/on-a-terminal`)).arrayBuffer();
    const deadline = Date.now() + 10_000;
    while (!out.includes('on-a-terminal') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    return out;
  } finally {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

test(
  'on a terminal the request line is readable; LOG_FORMAT=json keeps JSON there',
  { timeout: 60_000 },
  async () => {
    const pretty = await onTerminal({});
    assert.match(pretty, new RegExp(`${ESC}\\[32m200${ESC}\\[39m`), 'coloured on a terminal');
    const plain = pretty.replace(new RegExp(`${ESC}\\[\\d+m`, 'g'), '');
    assert.match(
      plain,
      /\d\d:\d\d:\d\d\.\d{3} GET {4}200 127\.0\.0\.1:\d+\/e\/echo\/on-a-terminal [\d.]+ ms/,
    );
    assert.doesNotMatch(pretty, /"msg":"request"/);
    const json = await onTerminal({ LOG_FORMAT: 'json' });
    assert.match(json, /"url":"\/e\/echo\/on-a-terminal".*"msg":"request"/);
  },
);

test(
  'in a pipe the request line stays JSON; LOG_FORMAT=pretty makes it readable there',
  { timeout: 60_000 },
  async () => {
    for (const [format, expected] of [
      ['auto', /"url":"\/e\/echo\/piped".*"msg":"request"/],
      ['pretty', /GET {4}200 127\.0\.0\.1:\d+\/e\/echo\/piped [\d.]+ ms/],
    ] as const) {
      const dir = mkdtempSync(join(tmpdir(), 'mb-pipe-'));
      const s = await serveCli({ DATA_DIR: dir, LOG_FORMAT: format, NO_COLOR: '1' }, 20_000, 'info');
      try {
        await (await fetch(`http://127.0.0.1:${s.port}/e/echo/piped`)).arrayBuffer();
        const deadline = Date.now() + 10_000;
        while (!s.stdout().includes('/e/echo/piped') && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 50));
        assert.match(s.stdout(), expected, format);
      } finally {
        s.child.kill('SIGTERM');
        await s.exited;
        rmSync(dir, { recursive: true, force: true });
      }
    }
  },
);

test(
  'the banner names the dashboard, the echo, the configuration file and its endpoints, the data and keys',
  { timeout: 60_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mb-banner-'));
    const s = await serveCli({ DATA_DIR: dir, MOCKINGBIRD_CONFIG: 'examples/mockingbird.yaml' });
    try {
      const port = s.port;
      const wait = Date.now() + 5000;
      while (!s.stdout().includes('API keys') && Date.now() < wait)
        await new Promise((r) => setTimeout(r, 20));
      const out = s.stdout();
      assert.match(out, new RegExp(`^  dashboard  http://localhost:${port}/$`, 'm'));
      assert.match(
        out,
        new RegExp(`^  echo       http://localhost:${port}/e/echo/ .*http://echo\\.localhost:${port}/`, 'm'),
      );
      assert.match(
        out,
        new RegExp(
          `^  config     examples/mockingbird\\.yaml: 3 endpoints, at http://localhost:${port}/e/<name>/ \\(users, webhooks, shop\\)$`,
          'm',
        ),
      );
      assert.match(
        out,
        new RegExp(`^  data       SQLite in ${join(dir, 'mockingbird.db').replace(/\./g, '\\.')}$`, 'm'),
      );
      assert.match(
        out,
        /^ {2}API keys {3}mockingbird keys create --server http:\/\/localhost:\d+ --api-key <admin key>$/m,
      );
      assert.match(out, /Admin API key \(shown once/);
    } finally {
      s.child.kill('SIGTERM');
      await s.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('an unreachable REDIS_URL stops the start with one line naming it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mb-redis-'));
  try {
    const r = await runCli(['serve', '--port', '0'], {
      DATA_DIR: dir,
      REDIS_URL: 'redis://:hunter2@127.0.0.1:9/0',
    });
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /^mockingbird: cannot reach Redis at REDIS_URL \(redis:\/\/:\*\*\*@127\.0\.0\.1:9\/0\): .*ECONNREFUSED.*unset REDIS_URL/,
    );
    assert.doesNotMatch(r.stderr, /hunter2/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const REDIS = process.env['REDIS_URL'];
test(
  'a reachable REDIS_URL is said in the banner',
  { skip: REDIS ? false : 'REDIS_URL is not set (CI sets it)' },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mb-redis-ok-'));
    const s = await serveCli({ DATA_DIR: dir, REDIS_URL: REDIS! });
    try {
      const wait = Date.now() + 5000;
      while (!s.stdout().includes('API keys') && Date.now() < wait)
        await new Promise((r) => setTimeout(r, 20));
      assert.match(
        s.stdout(),
        /^ {2}redis {6}redis:\/\/.* answers; instances coordinate through it \(docs\/deploy\.md\)$/m,
      );
    } finally {
      s.child.kill('SIGTERM');
      await s.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('an unreachable DATABASE_URL stops the start naming the URL, its password hidden', async () => {
  const r = await runCli(['serve', '--port', '0'], { DATABASE_URL: 'postgres://u:hunter2@127.0.0.1:9/x' });
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /^mockingbird: cannot open the database at DATABASE_URL \(postgres:\/\/u:\*\*\*@127\.0\.0\.1:9\/x\): .*ECONNREFUSED/,
  );
  assert.doesNotMatch(r.stderr, /hunter2/);
});
