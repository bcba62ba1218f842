/**
 * State under concurrency and leader-only jobs over two real instances on one PostgreSQL database and
 * one Redis (SPEC §8, issue 33 items 4 and 7): 2 x 500 concurrent requests spread over A and B
 * increment one counter, push to one list and create CRUD items, and every one is counted once (each
 * answer shows a value no other answer shows); the background jobs run on one instance at a time,
 * and on the other once the first is killed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startCluster, clusterSkip, type Cluster, type Instance } from '../helpers/cluster.js';
import { suiteOrSkip } from '../helpers/pg.js';
import { until } from '../helpers/until.js';

/** Requests each instance has in flight at most. */
const IN_FLIGHT = 50;
const PER_INSTANCE = 500;

suiteOrSkip('state and jobs over two instances', clusterSkip, () => {
  let c: Cluster;
  before(async () => {
    // LOG_LEVEL debug: each job run is a line (`history purge run`), so that a test can count them.
    c = await startCluster(2, { env: { LOG_LEVEL: 'debug' } });
    await api(0, 'POST', '/endpoints', { name: 'shared-state' });
    const templated = (path: string, body: string) => ({
      method: 'POST',
      conditions: [{ type: 'path', operator: 'equals', value: path }],
      action: { type: 'mock', status: 200, templated: true, body },
    });
    for (const rule of [
      templated('/hit', "{{step-counter 'inc' 'hits'}}"),
      templated('/push', "{{list 'push' 'seen' (body 'n')}}{{list 'length' 'seen'}}"),
      { conditions: [{ type: 'path', operator: 'starts_with', value: '/items' }], action: { type: 'crud' } },
    ]) {
      const r = await api(0, 'POST', '/endpoints/shared-state/rules', rule);
      assert.equal(r.status, 201, await r.text());
    }
  });
  after(async () => {
    await c?.stop();
  });

  const api = (...args: Parameters<Cluster['api']>): Promise<Response> => c.api(...args);

  /**
   * PER_INSTANCE requests on each instance, IN_FLIGHT at a time each, both instances at once;
   * answers every request's status and body, A's and B's interleaved in the order they were sent.
   */
  async function spread(
    path: string,
    body: (n: number) => unknown,
  ): Promise<{ status: number; text: string }[]> {
    const out: { status: number; text: string }[] = [];
    let next = 0;
    const worker = async (inst: Instance): Promise<void> => {
      while (next < 2 * PER_INSTANCE) {
        const n = next++;
        const r = await fetch(`${inst.url}/e/shared-state${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body(n)),
        });
        out[n] = { status: r.status, text: await r.text() };
      }
    };
    // Each instance's workers take requests from one shared sequence: both serve about half.
    await Promise.all(
      [0, 1].flatMap((i) => Array.from({ length: IN_FLIGHT }, () => worker(c.instances[i]!))),
    );
    return out;
  }

  const oneToThousand = Array.from({ length: 2 * PER_INSTANCE }, (_, i) => i + 1);

  test('2 x 500 increments of one counter over A and B: the answers show 1 … 1,000 once each, the counter reads 1,000', async () => {
    const answers = await spread('/hit', () => ({}));
    assert.ok(
      answers.every((a) => a.status === 200),
      JSON.stringify(answers.find((a) => a.status !== 200)),
    );
    assert.deepEqual(
      answers.map((a) => Number(a.text)).sort((x, y) => x - y),
      oneToThousand,
    );
    const read = await api(1, 'GET', '/endpoints/shared-state/state/counter/hits');
    assert.equal(((await read.json()) as { value: number }).value, 1000);
  });

  test('2 x 500 pushes to one list over A and B: each answer shows another length, the list holds every value once', async () => {
    const answers = await spread('/push', (n) => ({ n }));
    assert.ok(
      answers.every((a) => a.status === 200),
      JSON.stringify(answers.find((a) => a.status !== 200)),
    );
    assert.deepEqual(
      answers.map((a) => Number(a.text)).sort((x, y) => x - y),
      oneToThousand,
    );
    const read = await api(0, 'GET', '/endpoints/shared-state/state/list/seen');
    const list = ((await read.json()) as { value: number[] }).value;
    assert.deepEqual(
      [...list].sort((x, y) => x - y),
      Array.from({ length: 2 * PER_INSTANCE }, (_, i) => i),
    );
  });

  test('2 x 500 creations in one CRUD collection over A and B: 1,000 items, every id once', async () => {
    const answers = await spread('/items', (n) => ({ n }));
    assert.ok(
      answers.every((a) => a.status === 201),
      JSON.stringify(answers.find((a) => a.status !== 201)),
    );
    const ids = answers.map((a) => (JSON.parse(a.text) as { id: string }).id);
    assert.equal(new Set(ids).size, 1000);
    const list = await fetch(`${c.instances[1]!.url}/e/shared-state/items?limit=1`);
    assert.equal(list.headers.get('x-total-count'), '1000');
  });

  test('one instance runs the background jobs; killed, the other takes them over', async () => {
    const runs = (inst: Instance, from = 0): number =>
      inst
        .output()
        .slice(from)
        .split('\n')
        .filter((l) => l.includes('"msg":"history purge run"')).length;
    const leads = (inst: Instance, from = 0): boolean =>
      inst.output().slice(from).includes('"msg":"leading the instances on this database');
    // The history purge ticks every second on every instance; only the leader's ticks run.
    await until(() => leads(c.instances[0]!) || leads(c.instances[1]!), 10_000, 'no instance leads');
    const leader = leads(c.instances[0]!) ? c.instances[0]! : c.instances[1]!;
    const other = leader === c.instances[0] ? c.instances[1]! : c.instances[0]!;
    const [fromL, fromO] = [leader.output().length, other.output().length];
    await until(() => runs(leader, fromL) >= 3, 10_000, 'the leader did not run the purge 3 times');
    assert.equal(runs(other, fromO), 0, `${other.name} ran a job while ${leader.name} leads`);
    assert.equal(leads(other), false);

    const since = other.output().length;
    await leader.kill();
    await until(() => leads(other, since), 10_000, `${other.name} did not take over`);
    await until(() => runs(other, since) >= 2, 10_000, `${other.name} does not run the purge`);
  });
});
