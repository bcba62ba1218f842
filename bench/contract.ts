/**
 * What contract checking costs a templated request (issue 35: at most 15 % of its throughput in
 * `report` mode). bench:templates' route (`GET /users/:id?x=…`, a templated rule answering JSON with
 * a fake first name) on three endpoints of one Mockingbird (history on): `checked`, with an OpenAPI
 * document describing the route and `openapi.validation: report` (the request and the answer are
 * checked); `off`, with the same document and validation off; `plain`, with no document. Loaded in
 * turn by `wrk -t1 -c50`, ROUNDS alternating rounds; prints the medians and checked / off (target
 * >= 0.85), and checks first that `checked` records an empty `validation` list and `off` none.
 *
 *   npm run bench:contract          (ROUNDS=3 DURATION=8; needs wrk)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, BENCH_KEY, uploadSpec } from './api.js';
import { mockingbirdServe, startServer } from './servers.js';
import { TEMPLATED_PATH, TEMPLATED_RULE } from './templated-rule.js';
import { median, requireWrk, wrk } from './wrk.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const DURATION = Number(process.env['DURATION'] ?? 8);
const TARGET = 0.85;

/** The route as a document describes it: path and query parameters, and the answer's schema. */
const DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'bench', version: '1' },
  paths: {
    '/users/{id}': {
      get: {
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
          { name: 'x', in: 'query', required: true, schema: { type: 'string', maxLength: 64 } },
        ],
        responses: {
          '200': {
            description: 'the user',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'x', 'name'],
                  properties: {
                    id: { type: 'string', pattern: '^[0-9]+$' },
                    x: { type: 'string' },
                    name: { type: 'string', minLength: 1 },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

/** The newest history entry of `endpoint`, after one request. */
async function lastEntry(port: number, endpoint: string): Promise<Record<string, unknown>> {
  const r = await fetch(`http://127.0.0.1:${port}/e/${endpoint}${TEMPLATED_PATH}`);
  if (r.status !== 200) throw new Error(`${endpoint}: ${r.status} ${await r.text()}`);
  for (let i = 0; i < 100; i++) {
    const list = (await api(port, 'GET', `/endpoints/${endpoint}/requests?limit=1`)) as {
      data: Record<string, unknown>[];
    };
    if (list.data[0]) return list.data[0];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${endpoint}: no history entry`);
}

async function main(): Promise<void> {
  requireWrk();
  const dataDir = mkdtempSync(join(tmpdir(), 'mb-bench-contract-'));
  const logs = mkdtempSync(join(tmpdir(), 'mb-bench-logs-'));
  try {
    const serve = mockingbirdServe(dataDir, { MOCKINGBIRD_API_KEY: BENCH_KEY });
    const mb = await startServer(serve.args, serve.env, join(logs, 'mockingbird.log'));
    const modes = { checked: 'report', off: 'off', plain: undefined } as const;
    for (const [name, validation] of Object.entries(modes)) {
      await api(mb.port, 'POST', '/endpoints', { name });
      await api(mb.port, 'POST', `/endpoints/${name}/rules`, TEMPLATED_RULE);
      if (!validation) continue;
      await uploadSpec(mb.port, name, DOCUMENT);
      await api(mb.port, 'PATCH', `/endpoints/${name}/settings`, { openapi: { validation } });
    }
    // What is measured is what it claims: the checked endpoint checks, and finds the route kept.
    const checked = await lastEntry(mb.port, 'checked');
    if (
      JSON.stringify(checked['validation']) !== '[]' ||
      JSON.stringify(checked['responseValidation']) !== '[]'
    )
      throw new Error(`checked: expected empty lists, got ${JSON.stringify(checked)}`);
    if ('validation' in (await lastEntry(mb.port, 'off'))) throw new Error('off: the request was checked');

    const rates: Record<keyof typeof modes, number[]> = { checked: [], off: [], plain: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const name of Object.keys(modes) as (keyof typeof modes)[]) {
        const load = wrk(`http://127.0.0.1:${mb.port}/e/${name}${TEMPLATED_PATH}`, DURATION);
        if (load.errors > 0) throw new Error(`${name}: ${load.errors} failed requests`);
        rates[name].push(load.rps);
        console.log(`round ${round} ${name.padEnd(8)} ${load.rps.toFixed(0).padStart(7)} req/s`);
      }
    }
    console.log(`\nmedians of ${ROUNDS} rounds, wrk -t1 -c50 for ${DURATION} s each (history on):`);
    for (const name of Object.keys(modes) as (keyof typeof modes)[])
      console.log(`${name.padEnd(8)} ${median(rates[name]).toFixed(0).padStart(7)} req/s`);
    const ratio = median(rates.checked) / median(rates.off);
    console.log(
      `checked (report) / off: ${ratio.toFixed(2)}  (target >= ${TARGET}) ${ratio >= TARGET ? 'PASS' : 'FAIL'}`,
    );
    console.log(
      `checked (report) / no document: ${(median(rates.checked) / median(rates.plain)).toFixed(2)}`,
    );
    mb.child.kill('SIGTERM');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(logs, { recursive: true, force: true });
  }
}

await main();
