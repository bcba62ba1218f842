/**
 * `startMockingbird()`: a Mockingbird server for one test run, as a child process of the installed
 * package (`mockingbird serve`), on a port of its own and a data folder of its own, with an admin key
 * made here. It answers once the server does: the listening line has been printed and the API has
 * answered the key. `stop()` ends the process (SIGTERM, then SIGKILL after a grace period) and removes
 * the data folder it made. It loads nothing of the server into the test runner.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Mockingbird } from '../client/index.js';

export interface StartOptions {
  /** The port (0, the default, picks a free one). */
  port?: number;
  /** The data folder; by default a new one in the OS's temporary folder, removed by `stop()`. */
  dataDir?: string;
  /** The admin key (at least 32 characters); by default a random one. */
  apiKey?: string;
  /** A configuration file of endpoints to load (`--config`). */
  config?: string;
  /**
   * More environment for the server (settings such as `PROXY_ALLOW`, `DATABASE_URL`). It gets this
   * process's environment less DATABASE_URL, REDIS_URL, DATA_DIR, PORT, HOST, BASE_DOMAIN,
   * MOCKINGBIRD_CONFIG and MOCKINGBIRD_API_KEY, which it takes only from here.
   */
  env?: Record<string, string>;
  /** How long the start may take before it is given up (ms, default 20000). */
  timeoutMs?: number;
}

export interface StartedMockingbird {
  /** The server's base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Its admin key. */
  key: string;
  /** A typed client of it, authorised with the key. */
  client: Mockingbird;
  /** Stops the server and removes the data folder made for it. */
  stop(): Promise<void>;
}

/**
 * Settings of this process's environment the server does not take: a test run's server has its own
 * port, data and key, and a developer's DATABASE_URL or REDIS_URL must not point it at their database
 * (give them in `env` to use them).
 */
const NOT_INHERITED = [
  'DATABASE_URL',
  'REDIS_URL',
  'DATA_DIR',
  'PORT',
  'HOST',
  'BASE_DOMAIN',
  'MOCKINGBIRD_CONFIG',
  'MOCKINGBIRD_API_KEY',
];

/** The CLI beside this module: dist/cli.js when installed, src/cli.ts (through tsx) in the sources. */
function cliCommand(): string[] {
  const built = fileURLToPath(new URL('../cli.js', import.meta.url));
  if (existsSync(built)) return [built];
  return ['--import', 'tsx', fileURLToPath(new URL('../cli.ts', import.meta.url))];
}

export async function startMockingbird(opts: StartOptions = {}): Promise<StartedMockingbird> {
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'mockingbird-run-'));
  const key = opts.apiKey ?? `mb_${randomBytes(32).toString('base64url')}`;
  const args = [...cliCommand(), 'serve', '--port', String(opts.port ?? 0), '--host', '127.0.0.1'];
  if (opts.config !== undefined) args.push('--config', opts.config);
  const inherited = { ...process.env };
  for (const name of NOT_INHERITED) delete inherited[name];
  const child = spawn(process.execPath, args, {
    env: {
      ...inherited,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      ...opts.env,
      DATA_DIR: dataDir,
      MOCKINGBIRD_API_KEY: key,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let output = '';
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new Error(`startMockingbird: no answer within ${opts.timeoutMs ?? 20_000} ms\n${output}`)),
        opts.timeoutMs ?? 20_000,
      );
      const read = (chunk: Buffer): void => {
        output += chunk.toString();
        const m = /listening on (https?):\/\/[^:\s]+:(\d+)/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(`${m[1]}://127.0.0.1:${m[2]}`);
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', (c: Buffer) => (output += c.toString()));
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`startMockingbird: the server exited with code ${code}\n${output}`));
      });
    });
    const client = new Mockingbird({ baseUrl: url, apiKey: key });
    await client.endpoints(); // ready: the API answers the key
    return { url, key, client, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
