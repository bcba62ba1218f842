/**
 * What counting the echo's per-IP limit across instances costs (issue 33, item 3): the same echo, in
 * this process on loopback, loaded by `wrk -t1 -c50` in turn, ROUNDS alternating rounds, in three
 * set-ups: no REDIS_URL (in memory, the baseline); REDIS_URL as shipped (the echo counts in leases,
 * a Redis round trip per half block); and REDIS_URL with the exact shared limiter on the echo too (one
 * round trip a request), the design leases replace. Redis is a redis-server of the bench's own. The
 * limit is set high (ECHO_RATE_LIMIT 10,000,000) so that every request is counted and answered 200;
 * logging is off in all three. Prints each round, the medians and the ratios to the baseline.
 *
 *   node --import tsx bench/limiter.ts        (ROUNDS=3 DURATION=5 by default; needs wrk, redis-server)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LeasedRateLimiter, RedisLink, SharedRateLimiter, SharedWindows } from '../src/cluster/index.js';
import { MemoryRateLimiter } from '../src/http/index.js';
import { testConfig } from '../src/config.js';
import { buildApp, type App } from '../src/server.js';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { ECHO_PATH } from './servers.js';
import { cpuPerRequest, threadTicks } from './thread-cpu.js';
import { median, requireWrk } from './wrk.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const DURATION = Number(process.env['DURATION'] ?? 5);

requireWrk();

/** `wrk -t1 -c50` without blocking this process's event loop (the server under load runs in it). */
function wrk(url: string, seconds: number): Promise<{ rps: number; requests: number; errors: number }> {
  return new Promise((resolve, reject) => {
    const w = spawn('wrk', ['-t1', '-c50', `-d${seconds}s`, url]);
    let out = '';
    w.stdout.on('data', (d: Buffer) => (out += d.toString()));
    w.on('error', reject);
    w.on('exit', () => {
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
      const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
      const errors = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
      resolve({ rps, requests, errors });
    });
  });
}

/** The pid of the redis-server listening on `port` (its command line names the address). */
function redisPid(port: number): number | undefined {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.startsWith('redis-server') && cmd.includes(`:${port}`)) return Number(pid);
    } catch {
      // a process that ended meanwhile
    }
  }
  return undefined;
}

const redis = await startRedisServer();
const redisProcess = redisPid(redis.port);
const stats = redis.client();
/** Script calls redis-server has run so far: one a round trip of the limiter. */
async function scriptCalls(): Promise<number> {
  const info = await stats.info('commandstats');
  let n = 0;
  for (const m of info.matchAll(/cmdstat_eval(?:sha)?:calls=(\d+)/g)) n += Number(m[1]);
  return n;
}
const dirs: string[] = [];
const apps: App[] = [];
const links: RedisLink[] = [];

async function serve(redisUrl: string | undefined, exact: boolean): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mb-bench-limiter-'));
  dirs.push(dataDir);
  const config = testConfig({ dataDir, echoRateLimit: 10_000_000, redisUrl });
  let limiter: SharedRateLimiter | undefined;
  if (exact) {
    const link = new RedisLink(redis.url);
    links.push(link);
    await link.ready();
    limiter = new SharedRateLimiter(new SharedWindows(link));
  }
  const app = await buildApp(config, limiter ? { limiter } : {});
  apps.push(app);
  await app.fastify.listen({ port: 0, host: '127.0.0.1' });
  await app.ctx.redis?.ready();
  const addr = app.fastify.server.address();
  return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}${ECHO_PATH}`;
}

try {
  const targets = {
    'no REDIS_URL (memory)': await serve(undefined, false),
    'REDIS_URL, leases': await serve(redis.url, false),
    'REDIS_URL, a round trip a request': await serve(redis.url, true),
  };
  type Name = keyof typeof targets;
  const series = (): Record<Name, number[]> =>
    Object.fromEntries(Object.keys(targets).map((k) => [k, [] as number[]])) as Record<Name, number[]>;
  const rps = series();
  const cpu = series();
  const redisCpu = series();
  for (const url of Object.values(targets)) await wrk(url, 3); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, url] of Object.entries(targets) as [Name, string][]) {
      const before = threadTicks(process.pid);
      const redisBefore = redisProcess === undefined ? undefined : threadTicks(redisProcess);
      const sent = await scriptCalls();
      const r = await wrk(url, DURATION);
      const perRequest = ((await scriptCalls()) - sent) / r.requests;
      if (r.errors > 0) throw new Error(`${name}: ${r.errors} non-2xx answers`);
      const own = cpuPerRequest(before, threadTicks(process.pid), r.requests);
      const red = redisProcess === undefined ? undefined : threadTicks(redisProcess);
      const redisUs = cpuPerRequest(redisBefore, red, r.requests);
      rps[name].push(r.rps);
      if (own) cpu[name].push(own.main + own.others);
      if (redisUs) redisCpu[name].push(redisUs.main + redisUs.others);
      console.log(
        `round ${round + 1} ${name.padEnd(34)} ${r.rps.toFixed(0).padStart(7)} req/s` +
          `  cpu µs/req server ${(own ? own.main + own.others : NaN).toFixed(1).padStart(5)}` +
          ` redis-server ${(redisUs ? redisUs.main + redisUs.others : NaN).toFixed(1).padStart(5)}` +
          `  round trips/req ${perRequest.toFixed(3)}`,
      );
    }
  }
  const total = (name: Name): number =>
    median(cpu[name]) + (redisCpu[name].length > 0 ? median(redisCpu[name]) : 0);
  const base = median(rps['no REDIS_URL (memory)']);
  const baseCpu = total('no REDIS_URL (memory)');
  console.log('\nmedians (echo), req/s (spread) and ratio; CPU a request, server + redis-server, and ratio:');
  for (const name of Object.keys(targets) as Name[]) {
    const m = median(rps[name]);
    const spread = `${Math.min(...rps[name]).toFixed(0)}–${Math.max(...rps[name]).toFixed(0)}`;
    console.log(
      `  ${name.padEnd(34)} ${m.toFixed(0).padStart(7)} req/s (${spread}) ${(m / base).toFixed(2)}` +
        `   ${total(name).toFixed(1).padStart(5)} µs/req  ${(baseCpu / total(name)).toFixed(2)}`,
    );
  }

  // The limiter alone, without HTTP: a client's hits one after the other, yielding to the event loop
  // every 64 hits as a server does between requests (memory and leases), or 50 clients awaiting theirs.
  const hitsOf = async (name: string, hit: () => unknown, n: number, clients: number): Promise<void> => {
    const start = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        for (let i = 0; i < n / clients; i++) {
          const d = hit();
          if (d instanceof Promise) await d;
          else if ((i & 63) === 0) await new Promise((r) => setImmediate(r));
        }
      }),
    );
    const ns = Number(process.hrtime.bigint() - start) / n;
    console.log(`  ${name.padEnd(34)} ${ns.toFixed(0).padStart(7)} ns a hit`);
  };
  console.log('\nthe limiter alone (a limit never reached, one key):');
  const memory = new MemoryRateLimiter();
  const link = new RedisLink(redis.url);
  links.push(link);
  await link.ready();
  const windows = new SharedWindows(link);
  const leased = new LeasedRateLimiter(windows);
  const exact = new SharedRateLimiter(windows);
  for (let round = 0; round < 2; round++) {
    await hitsOf('MemoryRateLimiter', () => memory.hit('k', 1e12, 60_000), 1_000_000, 1);
    await hitsOf('LeasedRateLimiter', () => leased.hit('k', 1e12, 60_000), 1_000_000, 1);
    await hitsOf('SharedRateLimiter (50 clients)', () => exact.hit('k2', 1e12, 60_000), 50_000, 50);
  }
  await Promise.all([memory.close(), leased.close(), exact.close()]);
  windows.close();
} finally {
  for (const app of apps) await app.close();
  for (const link of links) await link.close();
  await redis.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
