/**
 * Echo cost in instructions: runs the bare node:http echo and Mockingbird's echo (history recording
 * on; once with the request log line, once without) under valgrind's callgrind, and counts the CPU
 * instructions each executes per request, all threads included (Mockingbird's history worker too).
 * Unlike req/s on a shared two-core machine, this count hardly moves with the machine's load, so it
 * shows where a change of a few percent went. It does not see time spent in the kernel (socket
 * writes), which is about the same for both servers.
 *
 *   npm run bench:echo-instructions        (needs valgrind; a few minutes)
 *
 * Each server is warmed up with WARMUP requests (so that V8 has optimised the hot code), then the
 * counters are zeroed and REQUESTS more are counted. Runs vary by a few percent (V8 compiles on
 * background threads, whose timing valgrind changes).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { BARE_ECHO, ECHO_PATH, mockingbirdServe, startServer } from './servers.js';

const WARMUP = Number(process.env['WARMUP'] ?? 10_000);
const REQUESTS = Number(process.env['REQUESTS'] ?? 5000);

try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('valgrind is not installed (Debian: apt-get install valgrind)');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'mb-bench-instr-'));

/** Instructions per request of one server, from a callgrind dump taken over REQUESTS requests. */
async function instructionsPerRequest(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const out = join(dir, `${name}.callgrind`);
  const server = await startServer(args, env, join(dir, `${name}.log`), {
    wrapper: ['valgrind', '--tool=callgrind', '--smc-check=all', `--callgrind-out-file=${out}`],
    timeoutMs: 180_000,
  });
  const url = `http://127.0.0.1:${server.port}${ECHO_PATH}`;
  try {
    const run = async (amount: number): Promise<void> => {
      const r = await autocannon({ url, connections: 10, amount, timeout: 60 });
      if (r.non2xx + r.errors > 0) throw new Error(`${name}: ${r.non2xx + r.errors} failed requests`);
    };
    await run(WARMUP);
    const pid = String(server.child.pid);
    execFileSync('callgrind_control', ['--zero', pid], { stdio: 'ignore' });
    await run(REQUESTS);
    execFileSync('callgrind_control', ['--dump', pid], { stdio: 'ignore' });
    // callgrind_control returns once the request is queued; the dump appears as `<out>.1`.
    for (let waited = 0; waited < 60_000; waited += 200) {
      const dump = readdirSync(dir).find((f) => f === `${name}.callgrind.1`);
      const text = dump ? readFileSync(join(dir, dump), 'utf8') : '';
      const m = /^totals:\s+(\d+)/m.exec(text);
      if (m) return Number(m[1]) / REQUESTS;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`${name}: no callgrind dump`);
  } finally {
    server.child.kill('SIGKILL');
  }
}

try {
  const serve = mockingbirdServe(join(dir, 'data'));
  const quiet = mockingbirdServe(join(dir, 'data-quiet'), { LOG_LEVEL: 'warn' });
  // In parallel: each valgrind runs its program's threads one at a time, and the counts do not
  // depend on how the machine's cores are shared.
  const [bare, mb, mbQuiet] = await Promise.all([
    instructionsPerRequest('bare', ['-e', BARE_ECHO], process.env),
    instructionsPerRequest('mockingbird', serve.args, serve.env),
    instructionsPerRequest('mockingbird-quiet', quiet.args, quiet.env),
  ]);
  const k = (n: number): string => `${(n / 1000).toFixed(0)}k`.padStart(6);
  console.log(`instructions per request (${REQUESTS} requests after ${WARMUP} to warm up):`);
  console.log(`bare node:http echo                       : ${k(bare)}`);
  console.log(`mockingbird echo, history on              : ${k(mb)}  (${(mb / bare).toFixed(2)} x bare)`);
  console.log(
    `mockingbird echo, history on, no log line : ${k(mbQuiet)}  (${(mbQuiet / bare).toFixed(2)} x bare)`,
  );
  console.log(`the request log line                      : ${k(mb - mbQuiet)}`);
  console.log(
    `\nbudget at a 0.85 throughput ratio: about ${k(bare / 0.85 - bare)} above bare; mockingbird is ${k(mb - bare)} above`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
