/** Bad settings stop the start with one clear line and a non-zero exit; flags win over the environment. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, SETTINGS } from '../../src/config.js';
import { runCli } from '../helpers/cli.js';

describe('loadConfig', () => {
  it('uses the documented defaults', () => {
    const c = loadConfig({}, {});
    assert.equal(c.port, 8080);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.baseDomain, 'localhost');
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.trustProxy, false);
    assert.equal(c.echoRateLimit, 1000);
    assert.equal(c.totpRateLimit, 10);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.bodyLimit, 1_048_576);
    assert.equal(c.historyRetentionDays, 10);
    assert.equal(c.historyMaxEntries, 100_000);
    assert.equal(c.totpRetentionDays, 90);
    assert.equal(c.defaultPlan, 'unlimited');
    assert.equal(c.qrWorkers, 1);
    assert.equal(c.qrQueue, 8);
    assert.equal(c.qrTimeout, 10_000);
    assert.equal(c.sseMaxStreams, 1000);
    assert.equal(c.sseMaxStreamsPerKey, 20);
    assert.equal(c.sseMaxBuffered, 262_144);
  });

  it('reads the environment, and flags win', () => {
    const c = loadConfig(
      { port: '9001' },
      { PORT: '9000', BASE_DOMAIN: 'Mock.Example.COM', TRUST_PROXY: 'true' },
    );
    assert.equal(c.port, 9001);
    assert.equal(c.baseDomain, 'mock.example.com');
    assert.equal(c.trustProxy, true);
  });

  const bad: [Record<string, string>, RegExp][] = [
    [{ PORT: 'abc' }, /PORT must be a whole number/],
    [{ PORT: '70000' }, /PORT must be between 0 and 65535/],
    [{ ECHO_RATE_LIMIT: '0' }, /ECHO_RATE_LIMIT must be between/],
    [{ TOTP_RATE_LIMIT: '-3' }, /TOTP_RATE_LIMIT must be a whole number/],
    [{ TRUST_PROXY: 'maybe' }, /TRUST_PROXY must be true or false/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must start with postgres:\/\//],
    [{ DATABASE_URL: 'not a url' }, /DATABASE_URL must be a URL/],
    [{ REDIS_URL: 'http://x' }, /REDIS_URL must start with redis:\/\//],
    [{ BASE_DOMAIN: 'bad domain!' }, /BASE_DOMAIN must be a domain name/],
    [{ TLS_CERT: '/nonexistent/cert.pem' }, /TLS_CERT names a file that cannot be read/],
    [{ BODY_LIMIT: '1023' }, /BODY_LIMIT must be between 1024/],
    [{ BLOB_LIMIT: '10' }, /BLOB_LIMIT must be between 1024/],
    [{ IMAGE_HOST: 'ftp://images' }, /IMAGE_HOST must start with http:\/\/ or https:\/\//],
    [{ AUTH_FAILURE_LIMIT: '0' }, /AUTH_FAILURE_LIMIT must be between/],
    [{ QR_WORKERS: '0' }, /QR_WORKERS must be between 1 and 64/],
    [{ QR_QUEUE: '-1' }, /QR_QUEUE must be a whole number/],
    [{ QR_TIMEOUT: '99' }, /QR_TIMEOUT must be between 100 and 600000/],
    [{ SSE_MAX_STREAMS: '0' }, /SSE_MAX_STREAMS must be between 1/],
    [{ SSE_MAX_STREAMS_PER_KEY: 'many' }, /SSE_MAX_STREAMS_PER_KEY must be a whole number/],
    [{ SSE_MAX_BUFFERED: '1023' }, /SSE_MAX_BUFFERED must be between 1024/],
    [{ REDACT_HEADERS: 'x-token, bad name' }, /REDACT_HEADERS must list header names, got "bad name"/],
    [{ KEEP_SENSITIVE_HEADERS: 'maybe' }, /KEEP_SENSITIVE_HEADERS must be true or false/],
  ];
  for (const [env, message] of bad) {
    it(`rejects ${JSON.stringify(env)}`, () => {
      assert.throws(
        () => loadConfig({}, env),
        (err: unknown) => err instanceof ConfigError && message.test(err.message),
      );
    });
  }

  it('refuses HEADERS_TIMEOUT above REQUEST_TIMEOUT, and takes it equal or below', () => {
    const pair = (headers: number, request: number) => ({
      HEADERS_TIMEOUT: String(headers),
      REQUEST_TIMEOUT: String(request),
    });
    assert.equal(loadConfig({}, pair(4999, 5000)).headersTimeout, 4999);
    assert.equal(loadConfig({}, pair(5000, 5000)).headersTimeout, 5000);
    assert.throws(
      () => loadConfig({}, pair(5001, 5000)),
      (err: unknown) =>
        err instanceof ConfigError &&
        /HEADERS_TIMEOUT \(5001 ms\) must not be above REQUEST_TIMEOUT \(5000 ms\)/.test(err.message),
    );
    // The default HEADERS_TIMEOUT (10 s) against a shorter REQUEST_TIMEOUT is the same mistake.
    assert.throws(() => loadConfig({}, { REQUEST_TIMEOUT: '5000' }), ConfigError);
    assert.throws(() => loadConfig({ 'headers-timeout': '40000' }, {}), ConfigError);
  });

  it('every setting has an environment variable and a flag', () => {
    for (const s of SETTINGS) {
      assert.match(s.env, /^[A-Z_]+$/);
      assert.match(s.flag, /^[a-z-]+$/);
    }
  });
});

describe('mockingbird command', () => {
  it('--version prints the package version', async () => {
    const r = await runCli(['--version']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^\d+\.\d+\.\d+\n$/);
  });

  it('serve --help lists every setting with its flag and variable', async () => {
    const r = await runCli(['serve', '--help']);
    assert.equal(r.code, 0);
    for (const s of SETTINGS) {
      assert.ok(r.stdout.includes(`--${s.flag}`), `help lists --${s.flag}`);
      assert.ok(r.stdout.includes(s.env), `help lists ${s.env}`);
    }
  });

  it('a bad port stops the start with one line and exit 2', async () => {
    const r = await runCli(['serve'], { PORT: 'abc' });
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /PORT must be a whole number, got "abc"/);
  });

  it('HEADERS_TIMEOUT above REQUEST_TIMEOUT stops the start with one line and exit 2', async () => {
    const r = await runCli(['serve', '--port', '0'], {
      HEADERS_TIMEOUT: '20000',
      REQUEST_TIMEOUT: '15000',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'mb-cli-')),
    });
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /HEADERS_TIMEOUT \(20000 ms\) must not be above REQUEST_TIMEOUT \(15000 ms\)/);
  });

  it('a flag is validated too, and named as a flag', async () => {
    const r = await runCli(['serve', '--port', 'abc']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--port must be a whole number/);
  });

  it('an unknown flag is refused', async () => {
    const r = await runCli(['serve', '--no-such-flag']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no-such-flag/);
  });

  it('an unreachable DATABASE_URL stops the start with one line', async () => {
    const r = await runCli(['serve', '--port', '0'], {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'mb-cli-')),
    });
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /cannot open the database at DATABASE_URL/);
  });

  it('a port in use stops the start with one line', async () => {
    const net = await import('node:net');
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await runCli(['serve'], {
        PORT: String(port),
        DATA_DIR: mkdtempSync(join(tmpdir(), 'mb-cli-')),
        LOG_LEVEL: 'silent',
      });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /cannot listen on 127\.0\.0\.1:\d+/);
    } finally {
      blocker.close();
    }
  });

  // Until keys went through the server's API, DATA_DIR alone made `keys create` write (and create) a
  // database; the key-format, unknown-endpoint and echo-scope assertions that stood here are in
  // test/cli/keys-command.test.ts, made with --data-dir on an existing database.
  it('keys create with only DATA_DIR set asks the server, and writes no database there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mb-cli-'));
    const r = await runCli(['keys', 'create', '--server', 'http://127.0.0.1:9', '--api-key', 'mb_x'], {
      DATA_DIR: dir,
    });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no Mockingbird server answers at http:\/\/127\.0\.0\.1:9/);
    assert.deepEqual(readdirSync(dir), []);
  });
});
