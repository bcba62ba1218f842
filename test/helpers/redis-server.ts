/**
 * A Redis server of a test's own (Debian's `redis-server`), on a free port, keeping nothing on disk:
 * a test can stop it, pause it (`CLIENT PAUSE`) and start it again empty, and no other test shares
 * its keys. Without `redis-server` on the PATH the tests that need it skip, saying why (CI has it).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

export const redisServerSkip: string | false =
  spawnSync('redis-server', ['--version']).status === 0
    ? false
    : 'redis-server is not on the PATH: tests of several instances skipped (apt-get install redis-server)';

/** A free TCP port on loopback (asked of the OS, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface TestRedis {
  port: number;
  url: string;
  /** Stops the server (SIGKILL: what an outage looks like to its clients). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** `CLIENT PAUSE ms ALL`: it accepts connections and answers nothing for `ms`. */
  pause(ms: number): Promise<void>;
  /** A client of it, for a test's own reads (closed by `stop`). */
  client(): Redis;
}

async function answers(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
    r.on('error', () => undefined);
    try {
      await r.connect();
      await r.ping();
      r.disconnect();
      return;
    } catch {
      r.disconnect();
      if (Date.now() > deadline)
        throw new Error(`redis-server on port ${port} did not answer in ${timeoutMs} ms`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }
}

export async function startRedisServer(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const clients = new Set<Redis>();
  const start = async (): Promise<void> => {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--loglevel',
        'warning',
      ],
      { stdio: 'ignore' },
    );
    await answers(port, 5000);
  };
  const stop = async (): Promise<void> => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((res) => c.once('exit', res));
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    start,
    async stop() {
      for (const r of clients) r.disconnect();
      clients.clear();
      await stop();
    },
    async pause(ms) {
      const r = new Redis({ port, host: '127.0.0.1' });
      try {
        await r.call('CLIENT', 'PAUSE', String(ms), 'ALL');
      } finally {
        r.disconnect();
      }
    },
    client() {
      const r = new Redis({ port, host: '127.0.0.1' });
      r.on('error', () => undefined);
      clients.add(r);
      return r;
    },
  };
}
