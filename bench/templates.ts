/**
 * Templated responses: Mockingbird (history on), WireMock and Mockoon CLI serve the same route,
 * beside a bare node:http server answering it by hand (the ceiling of anything on Node's HTTP stack),
 * `GET /users/:id?x=…` answering JSON with the id, the query parameter and a fake first name, started
 * here on loopback and loaded in turn by `wrk -t1 -c50` (one thread: on two cores the load generator
 * must leave the server a core), ROUNDS alternating rounds, medians printed. Then:
 *   - Mockingbird's p99 at half its maximum rate (autocannon at a fixed overall rate);
 *   - an endpoint of 1,000 rules whose match is the last, against an endpoint of one rule.
 *
 *   npm run bench:templates          (ROUNDS=3 DURATION=8; needs wrk, java; installs bench/peers)
 *
 * WireMock has no fake-name generator without an extension: its route answers a random alphabetic
 * word (`randomValue`) in place of the first name. Targets (issue 10): >= 5 x WireMock, >= 20 x Mockoon
 * CLI in req/s; p99 < 10 ms at half the maximum rate; 1,000 rules >= 0.8 of one rule.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { mockingbirdServe, startServer } from './servers.js';
import { BARE_TEMPLATED, TEMPLATED_PATH as PATH, TEMPLATED_RULE } from './templated-rule.js';
import { median, wrk as wrkLoad, type Load } from './wrk.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const DURATION = Number(process.env['DURATION'] ?? 8);
const PEERS = fileURLToPath(new URL('./peers/', import.meta.url));
const KEY = 'mb_bench_key_not_secret_0123456789abcdef';

for (const [cmd, args] of [
  ['wrk', ['--version']],
  ['java', ['-version']],
] as const) {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      console.error(
        `${cmd} is not installed (Debian: apt-get install ${cmd === 'java' ? 'default-jre' : cmd})`,
      );
      process.exit(2);
    }
  }
}
if (!existsSync(join(PEERS, 'node_modules'))) {
  console.log('installing the peers in bench/peers …');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: PEERS, stdio: 'inherit' });
}

const children: ChildProcess[] = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

/** Starts a peer and waits until `probe` answers 200. */
async function startPeer(cmd: string, args: string[], url: string, logFile: string): Promise<ChildProcess> {
  const child = spawn(cmd, args, { cwd: PEERS, stdio: ['ignore', openSync(logFile, 'w'), 'inherit'] });
  children.push(child);
  for (let waited = 0; waited < 60_000; waited += 250) {
    await new Promise((r) => setTimeout(r, 250));
    try {
      if ((await fetch(url)).ok) return child;
    } catch {
      /* not yet */
    }
  }
  throw new Error(`${cmd} did not start: ${readFileSync(logFile, 'utf8').slice(-2000)}`);
}

const wrk = (url: string): Load => wrkLoad(url, DURATION);

async function api(port: number, method: string, path: string, body: unknown): Promise<void> {
  const r = await fetch(`http://127.0.0.1:${port}/api/v2${path}`, {
    method,
    headers: { authorization: KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mb-bench-templates-'));
  const logs = mkdtempSync(join(tmpdir(), 'mb-bench-logs-'));
  try {
    const serve = mockingbirdServe(dataDir, { MOCKINGBIRD_API_KEY: KEY });
    const mb = await startServer(serve.args, serve.env, join(logs, 'mockingbird.log'));
    await api(mb.port, 'POST', '/endpoints', { name: 'bench' });
    await api(mb.port, 'POST', '/endpoints/bench/rules', TEMPLATED_RULE);
    await api(mb.port, 'POST', '/endpoints', { name: 'one' });
    await api(mb.port, 'PUT', '/endpoints/one/rules', { rules: [TEMPLATED_RULE] });
    await api(mb.port, 'POST', '/endpoints', { name: 'many' });
    const others = Array.from({ length: 499 }, (_, i) => ({
      method: 'GET',
      conditions: [{ type: 'path', operator: 'template', value: `/other${i}/:id` }],
      action: { type: 'mock', body: 'no' },
    }));
    // PUT takes at most 500 rules: 499 + the match, then 500 more above them.
    await api(mb.port, 'PUT', '/endpoints/many/rules', { rules: [...others, TEMPLATED_RULE] });
    for (let i = 0; i < 500; i++)
      await api(mb.port, 'POST', '/endpoints/many/rules', {
        method: 'GET',
        conditions: [{ type: 'path', operator: 'template', value: `/more${i}/:id` }],
        action: { type: 'mock', body: 'no' },
      });
    const order = await (
      await fetch(`http://127.0.0.1:${mb.port}/api/v2/endpoints/many/rules`, {
        headers: { authorization: KEY },
      })
    ).json();
    const ids = (order as { data: { id: string }[] }).data.map((r) => r.id);
    const match = ids[499]!;
    await api(mb.port, 'POST', '/endpoints/many/rules/reorder', {
      order: ids.filter((id) => id !== match).concat(match),
    });

    const wmPort = 18000 + Math.floor(Math.random() * 1000);
    await startPeer(
      'java',
      [
        '-jar',
        'node_modules/wiremock/build/wiremock-standalone-3.13.2.jar',
        '--port',
        String(wmPort),
        '--disable-banner',
        '--no-request-journal',
      ],
      `http://127.0.0.1:${wmPort}/__admin/mappings`,
      join(logs, 'wiremock.log'),
    );
    await fetch(`http://127.0.0.1:${wmPort}/__admin/mappings`, {
      method: 'POST',
      body: JSON.stringify({
        request: { method: 'GET', urlPathTemplate: '/users/{id}' },
        response: {
          status: 200,
          headers: { 'Content-Type': 'application/json' },
          body: `{"id":"{{request.path.id}}","x":"{{request.query.x}}","name":"{{randomValue length=8 type='ALPHABETIC'}}"}`,
          transformers: ['response-template'],
        },
      }),
    });
    const moPort = wmPort + 1;
    await startPeer(
      'node',
      ['node_modules/.bin/mockoon-cli', 'start', '-d', 'mockoon-env.json', '-p', String(moPort), '-X', '-r'],
      `http://127.0.0.1:${moPort}${PATH}`,
      join(logs, 'mockoon.log'),
    );

    const bare = await startServer(['-e', BARE_TEMPLATED], process.env, join(logs, 'bare.log'));
    children.push(bare.child);

    const targets = {
      'bare node:http': `http://127.0.0.1:${bare.port}${PATH}`,
      mockingbird: `http://127.0.0.1:${mb.port}/e/bench${PATH}`,
      wiremock: `http://127.0.0.1:${wmPort}${PATH}`,
      mockoon: `http://127.0.0.1:${moPort}${PATH}`,
      'mockingbird 1 rule': `http://127.0.0.1:${mb.port}/e/one${PATH}`,
      'mockingbird 1,000 rules': `http://127.0.0.1:${mb.port}/e/many${PATH}`,
    };
    for (const [name, url] of Object.entries(targets)) {
      const r = await fetch(url);
      console.log(`${name.padEnd(24)} ${r.status} ${(await r.text()).slice(0, 80)}`);
    }
    // Warm-up: V8 and the JVM optimise before anything is measured.
    for (const url of Object.values(targets)) wrk(url);

    const results: Record<string, Load[]> = Object.fromEntries(Object.keys(targets).map((k) => [k, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, url] of Object.entries(targets)) {
        const r = wrk(url);
        results[name]!.push(r);
        console.log(
          `round ${round + 1} ${name.padEnd(24)} ${r.rps.toFixed(0).padStart(7)} req/s  p99 ${r.p99.toFixed(2)} ms  errors ${r.errors}`,
        );
      }
    }
    const rps = (name: string) => median(results[name]!.map((r) => r.rps));
    const p99 = (name: string) => median(results[name]!.map((r) => r.p99));

    const half = Math.round(rps('mockingbird') / 2);
    const fixed = await autocannon({
      url: targets.mockingbird,
      connections: 50,
      overallRate: half,
      duration: DURATION,
    });

    console.log(`\nmedians of ${ROUNDS} rounds, wrk -t1 -c50 -d${DURATION}s:`);
    for (const name of Object.keys(targets))
      console.log(
        `${name.padEnd(24)} ${rps(name).toFixed(0).padStart(7)} req/s  p99 ${p99(name).toFixed(2)} ms`,
      );
    console.log(
      `\nmockingbird / wiremock        ${(rps('mockingbird') / rps('wiremock')).toFixed(2)} x   (target >= 5)`,
    );
    console.log(
      `bare node:http / wiremock     ${(rps('bare node:http') / rps('wiremock')).toFixed(2)} x   (the most any Node server can reach)`,
    );
    console.log(`mockingbird / bare node:http  ${(rps('mockingbird') / rps('bare node:http')).toFixed(2)}`);
    console.log(
      `mockingbird / mockoon         ${(rps('mockingbird') / rps('mockoon')).toFixed(2)} x   (target >= 20)`,
    );
    console.log(
      `1,000 rules / 1 rule          ${(rps('mockingbird 1,000 rules') / rps('mockingbird 1 rule')).toFixed(2)}     (target >= 0.8)`,
    );
    console.log(
      `mockingbird p99 at ${half} req/s (half its maximum): ${fixed.latency.p99} ms   (target < 10)`,
    );
  } finally {
    children.forEach((c) => c.kill('SIGTERM'));
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(logs, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
