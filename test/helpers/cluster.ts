/**
 * Several real Mockingbird instances, each a child process (`mockingbird serve` through tsx) on a port
 * of its own, sharing one fresh PostgreSQL database and one Redis of the test's own: the deployment of
 * SPEC §8 on one machine. Each instance can be stopped (SIGTERM, as a supervisor does) or killed, and
 * started again with the same settings.
 *
 *   const c = await startCluster(2);   // c.instances[0].url, c.redis.stop(), c.stop()
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ADMIN_KEY } from './app.js';
import { childEnv } from './cli.js';
import { freshPgDatabase, PG_BASE_URL } from './pg.js';
import { freePort, redisServerSkip, startRedisServer, type TestRedis } from './redis-server.js';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

/** Why tests of several instances cannot run here, or false when they can. */
export const clusterSkip: string | false = !PG_BASE_URL
  ? 'DATABASE_URL is not set: tests of several instances skipped (CI sets it)'
  : redisServerSkip;

export interface Instance {
  /** `A`, `B`, `C`: its place in the cluster, for messages. */
  name: string;
  port: number;
  url: string;
  /** Everything it printed (JSON log lines on stdout, anything else on stderr). */
  output(): string;
  /** The running process (undefined while stopped). */
  child(): ChildProcess | undefined;
  /** SIGTERM and wait for the exit (SIGKILL after 15 s); resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait. */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same settings. */
  start(): Promise<void>;
}

export interface Cluster {
  instances: Instance[];
  key: string;
  databaseUrl: string;
  redis: TestRedis;
  /** Calls instance `i`'s management API with the admin key (a JSON body when given). */
  api(i: number, method: string, path: string, body?: unknown): Promise<Response>;
  /** Stops every instance and Redis, and drops the database. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** More settings for every instance. */
  env?: Record<string, string>;
  /** Settings per instance, by index; `port` is the one it listens on (INSTANCE_URL). */
  envOf?: (index: number, port: number) => Record<string, string>;
}

/** Resolves once `child` prints its listening line (in what it printed from `from` on). */
async function listening(
  child: ChildProcess,
  out: { text: string },
  from: number,
  timeoutMs: number,
): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no listening line in ${timeoutMs} ms:\n${out.text}`)),
      timeoutMs,
    );
    const check = (): void => {
      if (/listening on https?:\/\//.test(out.text.slice(from))) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the instance exited with code ${code}:\n${out.text}`));
    });
    check();
  });
}

export async function startCluster(n: number, opts: ClusterOptions = {}): Promise<Cluster> {
  const db = await freshPgDatabase();
  const redis = await startRedisServer();
  const instances: Instance[] = [];
  const cluster: Cluster = {
    instances,
    key: ADMIN_KEY,
    databaseUrl: db.url,
    redis,
    api(i, method, path, body) {
      return fetch(`${instances[i]!.url}/api/v2${path}`, {
        method,
        headers: {
          authorization: ADMIN_KEY,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    },
    async stop() {
      await Promise.all(instances.map((i) => i.kill()));
      await redis.stop();
      await db.drop();
    },
  };
  try {
    // One at a time: the first start migrates the database, the others find it migrated.
    for (let i = 0; i < n; i++) instances.push(await startInstance(i, cluster, opts));
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

async function startInstance(index: number, cluster: Cluster, opts: ClusterOptions): Promise<Instance> {
  const port = await freePort();
  const name = String.fromCharCode(65 + index);
  let child: ChildProcess | undefined;
  const out = { text: '' };
  const env = childEnv({
    DATABASE_URL: cluster.databaseUrl,
    REDIS_URL: cluster.redis.url,
    MOCKINGBIRD_API_KEY: cluster.key,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    SHUTDOWN_TIMEOUT: '10000',
    ...opts.env,
    ...opts.envOf?.(index, port),
  });
  const start = async (): Promise<void> => {
    const c = spawn(process.execPath, ['--import', TSX, CLI, 'serve'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = c;
    const from = out.text.length;
    c.stdout.on('data', (d: Buffer) => (out.text += d.toString()));
    c.stderr.on('data', (d: Buffer) => (out.text += d.toString()));
    await listening(c, out, from, 30_000);
  };
  const wait = (c: ChildProcess): Promise<number | null> =>
    c.exitCode !== null || c.signalCode !== null
      ? Promise.resolve(c.exitCode)
      : new Promise((res) => c.once('exit', (code) => res(code)));
  const inst: Instance = {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    output: () => out.text,
    child: () => child,
    async stop() {
      const c = child;
      if (!c) return null;
      c.kill('SIGTERM');
      const timer = setTimeout(() => c.kill('SIGKILL'), 15_000);
      const code = await wait(c);
      clearTimeout(timer);
      child = undefined;
      return code;
    },
    async kill() {
      const c = child;
      if (!c) return;
      c.kill('SIGKILL');
      await wait(c);
      child = undefined;
    },
    start,
  };
  await start();
  return inst;
}
