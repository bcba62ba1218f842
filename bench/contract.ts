/**
 * What contract checking (SPEC §7) costs a templated request: one server (dist/), three endpoints
 * answering the same templated rule (bench/templated-rule.ts): `plain` without an OpenAPI document,
 * `off` with a document describing the request and its answer (`openapi.validation: off`), and
 * `report` with the same document checked on every request. Loaded in turn by autocannon (-c50),
 * ROUNDS rounds of DURATION seconds (the order turning each round), medians printed with report's
 * ratio to off.
 * Target (issue 35): report >= 0.85 of off in req/s.
 *
 *   npm run build:server && node --import tsx bench/contract.ts      (ROUNDS=3 DURATION=5)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { mockingbirdServe, startServer } from './servers.js';
import { TEMPLATED_PATH, TEMPLATED_RULE } from './templated-rule.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const DURATION = Number(process.env['DURATION'] ?? 5);
const KEY = 'mb_bench_key_not_secret_0123456789abcdef';

const DOC = {
  openapi: '3.0.3',
  info: { title: 'bench', version: '1' },
  paths: {
    '/users/{id}': {
      get: {
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
          { name: 'x', in: 'query', schema: { type: 'string', maxLength: 20 } },
        ],
        responses: {
          '200': {
            description: 'a user',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'name'],
                  properties: { id: { type: 'string' }, x: { type: 'string' }, name: { type: 'string' } },
                },
              },
            },
          },
        },
      },
    },
  },
};

const dir = mkdtempSync(join(tmpdir(), 'mb-bench-contract-'));
const { args, env } = mockingbirdServe(dir, { LOG_LEVEL: 'warn' });
const { child, port } = await startServer(args, { ...env, LOG_LEVEL: 'info' }, join(dir, 'server.log'));
const base = `http://127.0.0.1:${port}`;

async function api(method: string, path: string, body?: unknown): Promise<unknown> {
  const r = await fetch(`${base}/api/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

for (const [name, mode] of [
  ['plain', undefined],
  ['off', 'off'],
  ['report', 'report'],
] as const) {
  await api('POST', '/endpoints', { name });
  await api('POST', `/endpoints/${name}/rules`, TEMPLATED_RULE);
  if (mode === undefined) continue;
  await api('PATCH', `/endpoints/${name}/settings`, { openapi: { validation: mode } });
  const job = (await api('POST', `/endpoints/${name}/specs`, DOC)) as { jobId: string };
  for (let i = 0; i < 100; i++) {
    const j = (await api('GET', `/endpoints/${name}/jobs/${job.jobId}`)) as { status: string };
    if (j.status === 'COMPLETED') break;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function load(name: string): Promise<number> {
  const r = await autocannon({
    url: `${base}/e/${name}${TEMPLATED_PATH}`,
    connections: 50,
    duration: DURATION,
  });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r.requests.average;
}

const rps: Record<string, number[]> = { plain: [], off: [], report: [] };
for (const name of Object.keys(rps)) await load(name); // warm-up
// The order turns each round, so that no endpoint always runs after the same one (history writes lag).
const names = Object.keys(rps);
for (let i = 0; i < ROUNDS; i++)
  for (let k = 0; k < names.length; k++) {
    const name = names[(i + k) % names.length]!;
    rps[name]!.push(await load(name));
  }
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, xs] of Object.entries(rps))
  console.log(
    `${name.padEnd(7)} ${median(xs).toFixed(0)} req/s  (${xs.map((x) => x.toFixed(0)).join(', ')})`,
  );
console.log(`report / off: ${(median(rps['report']!) / median(rps['off']!)).toFixed(3)}`);
child.kill('SIGTERM');
rmSync(dir, { recursive: true, force: true });
