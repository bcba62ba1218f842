/**
 * The endpoint commands (src/admin/), run against every store backend: each change is written and
 * ends in exactly one change announced on the bus, with the part it touched (`what`) and, where the
 * dashboards are told, their event; a refused change announces nothing and writes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appendRecordedRule,
  appendRule,
  changeSettings,
  createEndpoint,
  deleteAllRules,
  deleteBlob,
  deleteEndpoint,
  deleteRule,
  deleteSpec,
  deleteStateItem,
  deleteStateItems,
  issueCertificate,
  patchedRule,
  putState,
  reorderRules,
  replaceRule,
  replaceRules,
  revokeCertificate,
  stateItemsOf,
  storeBlob,
  uploadSpec,
  type IssuedCertificate,
} from '../../src/admin/index.js';
import { testConfig, type Config } from '../../src/config.js';
import { CustomDomains, EndpointCache } from '../../src/endpoint/index.js';
import { AppError } from '../../src/errors.js';
import type { EndpointChange } from '../../src/events/index.js';
import { endpointResolver, ruleFromRecord, type RuleData } from '../../src/mock/index.js';
import { stateLimits } from '../../src/state/index.js';
import type { EndpointRecord, KyselyStore } from '../../src/store/index.js';
import { STORE_BACKENDS } from '../helpers/store-backends.js';
import { until } from '../helpers/until.js';

const NOW = 1_767_225_600_000;

function rule(path: string, body = 'ok'): Record<string, unknown> {
  return {
    method: 'GET',
    conditions: [{ type: 'path', operator: 'equals', value: path }],
    action: { type: 'mock', status: 200, body },
  };
}

const OPENAPI = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1.0.0' },
  paths: { '/pets': { get: { responses: { '200': { description: 'ok' } } } } },
});

/** Asserts `run` refuses with `status`, and that nothing was announced. */
async function refused(
  changes: EndpointChange[],
  status: number,
  run: () => Promise<unknown>,
): Promise<void> {
  const before = changes.length;
  await assert.rejects(run, (err: unknown) => err instanceof AppError && err.status === status);
  assert.equal(changes.length, before, 'a refused change announces nothing');
}

for (const backend of STORE_BACKENDS) {
  void describe(`endpoint commands (${backend.name})`, { skip: backend.skip }, () => {
    let store: KyselyStore;
    let cleanup: () => Promise<void>;
    let seq = 0;

    before(async () => {
      ({ store, cleanup } = await backend.open());
    });
    after(async () => {
      await store.close();
      await cleanup();
    });

    /** Fresh dependencies whose bus records what is announced. */
    function harness(overrides: Partial<Config> = {}) {
      const changes: EndpointChange[] = [];
      const config = testConfig({ dataDir: mkdtempSync(join(tmpdir(), 'mb-admin-')), ...overrides });
      const domains = new CustomDomains();
      const deps = {
        config,
        store,
        domains,
        now: () => NOW,
        events: { publishChange: (c: EndpointChange) => void changes.push(c) },
      };
      return { changes, deps, domains };
    }

    /** A new endpoint (created outside the harness, so that its creation is not counted). */
    async function endpoint(): Promise<EndpointRecord> {
      const rec: EndpointRecord = { name: `ep${++seq}`, createdAt: NOW, settings: { plan: 'unlimited' } };
      assert.equal(await store.createEndpoint(rec), true);
      return rec;
    }

    void it('createEndpoint announces `created`; a bad name or a taken one announces nothing', async () => {
      const { changes, deps } = harness();
      const rec = await createEndpoint(deps, 'made-here');
      assert.equal(rec?.name, 'made-here');
      assert.deepEqual(changes, [{ endpoint: 'made-here', what: 'created' }]);
      await refused(changes, 400, () => createEndpoint(deps, 'Bad Name!'));
      assert.equal(await store.getEndpoint('Bad Name!'), undefined);
      assert.equal(await createEndpoint(deps, 'made-here'), undefined);
      assert.equal(changes.length, 1, 'an endpoint that exists already is not created again');
    });

    void it('deleteEndpoint announces `deleted` and clears its domain; echo is refused untouched', async () => {
      const { changes, deps, domains } = harness();
      const ep = await endpoint();
      domains.set(ep.name, 'api.example.test');
      await deleteEndpoint(deps, ep);
      assert.deepEqual(changes, [{ endpoint: ep.name, what: 'deleted' }]);
      assert.equal(await store.getEndpoint(ep.name), undefined);
      assert.equal(domains.get('api.example.test'), undefined);
      const echo = (await store.getEndpoint('echo'))!;
      await refused(changes, 403, () => deleteEndpoint(deps, echo));
      assert.ok(await store.getEndpoint('echo'));
    });

    void it("changeSettings announces `settings` with the dashboards' settings.updated", async () => {
      const { changes, deps } = harness();
      const ep = await endpoint();
      const settings = await changeSettings(deps, ep, { locale: 'de' }, { requireAdmin: () => undefined });
      assert.equal(changes.length, 1);
      assert.deepEqual(changes[0], {
        endpoint: ep.name,
        what: 'settings',
        notice: { name: 'settings.updated', data: settings },
      });
      assert.equal((await store.getEndpoint(ep.name))!.settings['locale'], 'de');
    });

    void it('changeSettings refused (bad settings, a domain claimed elsewhere) writes and announces nothing', async () => {
      const { changes, deps, domains } = harness();
      const ep = await endpoint();
      const other = await endpoint();
      const admin = { requireAdmin: () => undefined };
      await refused(changes, 400, () =>
        changeSettings(deps, ep, { security: { enabled: true, headerKey: '' } }, admin),
      );
      await changeSettings(
        deps,
        other,
        { customDomain: { enabled: true, domain: 'shop.example.test' } },
        admin,
      );
      assert.deepEqual(
        changes.map((c) => [c.endpoint, c.what]),
        [[other.name, 'settings']],
      );
      await refused(changes, 409, () =>
        changeSettings(deps, ep, { customDomain: { enabled: true, domain: 'shop.example.test' } }, admin),
      );
      assert.deepEqual((await store.getEndpoint(ep.name))!.settings, ep.settings, 'nothing written');
      assert.equal(domains.get('shop.example.test'), other.name);
      await refused(changes, 403, () =>
        changeSettings(
          deps,
          ep,
          { plan: 'free' },
          {
            requireAdmin: () => {
              throw new AppError('forbidden', 'admin only');
            },
          },
        ),
      );
    });

    void it('each rule command announces `rules` once, with the event the dashboards have always had', async () => {
      const { changes, deps } = harness();
      const ep = await endpoint();
      const replaced = await replaceRules(deps, ep, [rule('/a'), rule('/b')]);
      assert.equal(replaced, 2);
      const ids = (await store.listRules(ep.name)).map((r) => r.id);
      const created = await appendRule(deps, ep, rule('/c'));
      const updated = await replaceRule(deps, ep, created.id, rule('/c', 'changed'));
      const patched = await replaceRule(
        deps,
        ep,
        created.id,
        patchedRule(updated, { description: 'patched', id: 'ignored' }),
      );
      assert.equal(patched.id, created.id);
      assert.equal(patched.description, 'patched');
      await reorderRules(deps, ep, [created.id]);
      const recorded = await appendRecordedRule(deps, ep, {
        method: 'GET',
        conditions: [{ type: 'path', operator: 'equals', value: '/r' }],
        action: { type: 'mock', status: 201, headers: [], body: 'recorded' },
      } as unknown as RuleData);
      await deleteAllRules(deps, ep);
      assert.ok(changes.every((c) => c.endpoint === ep.name && c.what === 'rules'));
      assert.deepEqual(
        changes.map((c) => c.notice),
        [
          { name: 'rules.reordered', data: { order: ids, replaced: 2 } },
          { name: 'rule.created', data: created },
          { name: 'rule.updated', data: updated },
          { name: 'rule.updated', data: patched },
          { name: 'rules.reordered', data: { order: [created.id, ...ids] } },
          { name: 'rule.created', data: recorded },
          { name: 'rules.deleted', data: { count: 4 } },
        ],
      );
    });

    void it('a refused rule change writes and announces nothing', async () => {
      const { changes, deps } = harness();
      const ep = await endpoint();
      await replaceRules(deps, ep, [rule('/a')]);
      changes.length = 0;
      const before = (await store.listRules(ep.name)).map(ruleFromRecord);
      await refused(changes, 400, () => replaceRules(deps, ep, [rule('/x'), { method: 'GET' }]));
      await refused(changes, 400, () => appendRule(deps, ep, { method: 'NOPE' }));
      await refused(changes, 400, () =>
        appendRule(deps, ep, {
          ...rule('/blob'),
          action: { type: 'mock', status: 200, blobPath: 'res-body-missing.json' },
        }),
      );
      await refused(changes, 404, () => replaceRule(deps, ep, 'no-such-rule', rule('/y')));
      await refused(changes, 400, () => reorderRules(deps, ep, ['no-such-rule']));
      await refused(changes, 404, () => deleteRule(deps, ep, 'no-such-rule'));
      // The free plan holds 3 rules.
      const free = { ...ep, settings: { plan: 'free' } };
      await refused(changes, 403, () =>
        replaceRules(
          deps,
          free,
          [0, 1, 2, 3].map((i) => rule(`/${i}`)),
        ),
      );
      assert.deepEqual((await store.listRules(ep.name)).map(ruleFromRecord), before, 'nothing written');
    });

    void it('state: putState and the deletes announce `state`; over the bound nothing is written', async () => {
      const { changes, deps } = harness({ stateMaxItems: 2 });
      const ep = await endpoint();
      const limits = stateLimits(deps.config);
      assert.deepEqual(
        await putState(deps, ep, stateItemsOf(limits, [{ type: 'Counter', key: 'hits', value: 1 }])),
        { created: 1, updated: 0 },
      );
      assert.deepEqual(changes, [{ endpoint: ep.name, what: 'state' }]);
      assert.throws(
        () => stateItemsOf(limits, [{ type: 'nope', key: 'k', value: 1 }]),
        (e: unknown) => e instanceof AppError && e.status === 400,
      );
      await refused(changes, 400, () =>
        putState(
          deps,
          ep,
          stateItemsOf(limits, [
            { type: 'string', key: 'a', value: 'x' },
            { type: 'string', key: 'b', value: 'y' },
          ]),
        ),
      );
      assert.equal((await store.pageState(ep.name, { limit: 10, offset: 0 })).total, 1, 'nothing written');
      assert.equal(await deleteStateItem(deps, ep, 'counter', 'missing'), false);
      assert.equal(changes.length, 1, 'deleting nothing announces nothing');
      assert.equal(await deleteStateItem(deps, ep, 'counter', 'hits'), true);
      assert.equal(await deleteStateItems(deps, ep, undefined), 0);
      assert.deepEqual(
        changes.map((c) => c.what),
        ['state', 'state', 'state'],
      );
    });

    void it('blobs: storing and deleting announce `blobs`; over quota or in use nothing changes', async () => {
      const { changes, deps } = harness({ blobQuota: 10 });
      const ep = await endpoint();
      const blob = (name: string, size: number) => ({
        endpoint: ep.name,
        name,
        contentType: 'text/plain',
        size,
        data: Buffer.alloc(size, 'x'),
        createdAt: NOW,
      });
      assert.equal(await storeBlob(deps, blob('res-body-a.txt', 4)), true);
      assert.deepEqual(changes, [{ endpoint: ep.name, what: 'blobs' }]);
      await refused(changes, 413, () => storeBlob(deps, blob('res-body-b.txt', 8)));
      assert.equal(await store.getBlob(ep.name, 'res-body-b.txt'), undefined);
      await replaceRules(deps, ep, [
        { ...rule('/file'), action: { type: 'mock', status: 200, blobPath: 'res-body-a.txt' } },
      ]);
      changes.length = 0;
      await refused(changes, 409, () => deleteBlob(deps, ep, 'res-body-a.txt'));
      await refused(changes, 404, () => deleteBlob(deps, ep, 'res-body-none.txt'));
      await deleteAllRules(deps, ep);
      await deleteBlob(deps, ep, 'res-body-a.txt');
      assert.deepEqual(
        changes.map((c) => c.what),
        ['rules', 'blobs'],
      );
    });

    void it('certificates: issue and revoke announce `certificates`; without TLS or when full, nothing', async () => {
      const made = { record: { id: 'c1' }, keyPem: 'KEY' } as unknown as IssuedCertificate;
      let next: IssuedCertificate | undefined = made;
      const authority = async () => ({ issue: async () => next });
      const off = harness();
      const ep = await endpoint();
      await refused(off.changes, 400, () => issueCertificate({ ...off.deps, authority }, ep, 'ci'));
      const { changes, deps } = harness({ tlsCert: '/tmp/cert.pem', tlsKey: '/tmp/key.pem' });
      assert.equal(await issueCertificate({ ...deps, authority }, ep, 'ci'), made);
      assert.deepEqual(changes, [{ endpoint: ep.name, what: 'certificates' }]);
      next = undefined;
      await refused(changes, 409, () => issueCertificate({ ...deps, authority }, ep, 'ci'));
      await refused(changes, 404, () => revokeCertificate(deps, ep, 'no-such-cert'));
    });

    void it('uploadSpec announces `spec` once the job has stored the document; deleteSpec likewise', async () => {
      const { changes, deps } = harness();
      const full = {
        ...deps,
        endpoints: new EndpointCache(store, endpointResolver(deps.config)),
        log: { error: () => undefined } as unknown as import('fastify').FastifyBaseLogger,
      };
      const ep = await endpoint();
      await refused(changes, 400, () => uploadSpec(full, ep, 'openapi: [', false));
      await refused(changes, 403, () =>
        uploadSpec(full, { ...ep, settings: { plan: 'free' } }, OPENAPI, false),
      );
      const job = await uploadSpec(full, ep, OPENAPI, false);
      assert.equal(job.status, 'QUEUED');
      await until(async () => (await store.getSpecJob(ep.name, job.id))?.status === 'COMPLETED', 15_000);
      assert.deepEqual(changes, [{ endpoint: ep.name, what: 'spec' }]);
      assert.equal(await deleteSpec(deps, ep), true);
      assert.equal(await deleteSpec(deps, ep), false);
      assert.deepEqual(
        changes.map((c) => c.what),
        ['spec', 'spec'],
      );
    });
  });
}
