/**
 * One contract suite for the Store, run against every implementation: SQLite always, PostgreSQL when
 * DATABASE_URL is set (mandatory in CI).
 */
import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  type HistoryEntry,
  type HistoryFile,
  type Json,
  type KyselyStore,
  type NewHistoryEntry,
} from '../../src/store/index.js';
import { entry as historyEntry } from '../helpers/history-fixtures.js';
import { suiteOrSkip } from '../helpers/pg.js';
import { STORE_BACKENDS } from '../helpers/store-backends.js';

/** A small uploaded file, attached to entries by the history tests. */
const doc: Omit<HistoryFile, 'requestId'> = {
  fieldName: 'doc',
  fileName: 'a.txt',
  contentType: 'text/plain',
  size: 3,
  data: Buffer.from('abc'),
};

let seq = 0;
/** The shared history fixture, with ids and times that grow in insertion order. */
function entry(
  endpoint: string,
  over: Partial<HistoryEntry> = {},
  files: Omit<HistoryFile, 'requestId'>[] = [],
): NewHistoryEntry {
  seq++;
  return historyEntry(
    endpoint,
    {
      id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
      createdAt: 1_700_000_000_000 + seq * 1000,
      ...over,
    },
    files,
  );
}

for (const b of STORE_BACKENDS) {
  suiteOrSkip(`Store contract: ${b.name}`, b.skip, () => {
    let store: KyselyStore;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ store, cleanup } = await b.open());
      await store.createEndpoint({ name: 'shop', createdAt: Date.now(), settings: { plan: 'unlimited' } });
      await store.createEndpoint({ name: 'other', createdAt: Date.now(), settings: {} });
    });
    after(async () => {
      await store.close();
      await cleanup();
    });

    it('migrations are idempotent and create the built-in echo endpoint', async () => {
      await store.migrate();
      assert.deepEqual(
        (await store.listEndpoints()).map((e) => e.name),
        ['echo', 'other', 'shop'],
      );
    });

    it('blobs: put refuses a duplicate name, get returns the bytes, list leaves them out, delete', async () => {
      const data = Buffer.from([0, 1, 2, 254, 255]);
      const blob = {
        endpoint: 'other',
        name: 'res-body-a.bin',
        contentType: 'application/octet-stream',
        size: 5,
        data,
        createdAt: 5,
      };
      assert.equal(await store.putBlob(blob), true);
      assert.equal(await store.putBlob({ ...blob, data: Buffer.from('x') }), false);
      assert.deepEqual((await store.getBlob('other', 'res-body-a.bin'))?.data, data);
      assert.equal(await store.getBlob('shop', 'res-body-a.bin'), undefined);
      assert.deepEqual(await store.listBlobs('other'), [
        { name: 'res-body-a.bin', contentType: 'application/octet-stream', size: 5, createdAt: 5 },
      ]);
      assert.equal(await store.deleteBlob('other', 'res-body-a.bin'), true);
      assert.equal(await store.deleteBlob('other', 'res-body-a.bin'), false);
      assert.deepEqual(await store.listBlobs('other'), []);
    });

    it('history: a callout is kept with its entry, replaced later, and weighs in the size', async () => {
      const callout: NonNullable<HistoryEntry['callout']> = {
        behavior: 'async',
        state: 'pending',
        request: {
          method: 'POST',
          url: 'http://127.0.0.1:9/hook',
          headers: { 'content-type': 'application/json', 'x-many': ['a', 'b'] },
          body: '{"a":1}',
          bodyTruncated: false,
          files: [{ name: 'doc', fileName: 'a.txt', contentType: 'text/plain', size: 3 }],
        },
        connectionId: 'c1',
      };
      const e = entry('calls', { behavior: 'callout', callout });
      const plain = entry('calls');
      await store.insertHistory([e, plain]);
      assert.deepEqual((await store.getHistory('calls', e.entry.id))?.callout, callout);
      assert.equal((await store.getHistory('calls', plain.entry.id))?.callout, undefined);
      const before = (await store.trimHistory('calls', { maxEntries: 100, maxBytes: 1e9 })).bytes;
      const done: NonNullable<HistoryEntry['callout']> = {
        ...callout,
        state: 'done',
        sentAt: 1_700_000_000_500,
        durationMs: 12,
        response: { status: 201, headers: { 'x-up': '1' }, body: 'x'.repeat(500), bodyTruncated: false },
      };
      assert.equal(await store.setHistoryCallout('calls', e.entry.id, done), true);
      const listed = (await store.listHistory('calls', {}, 10)).data.find((x) => x.id === e.entry.id);
      assert.deepEqual(listed?.callout, done);
      const after = (await store.trimHistory('calls', { maxEntries: 100, maxBytes: 1e9 })).bytes;
      assert.equal(after - before, JSON.stringify(done).length - JSON.stringify(callout).length);
      assert.equal(await store.setHistoryCallout('calls', 'no-such-id', done), false);
      assert.equal(await store.setHistoryCallout('other', e.entry.id, done), false, 'by endpoint');
    });

    it('history: an entry whose bodies and file name hold U+0000 is written, beside the others of its batch', async () => {
      const binary = Buffer.from([0x7b, 0x00, 0x01, 0x7d]).toString('utf8');
      const nul = entry('nul', { requestBody: binary, responseBody: `a\u0000b`, path: '/nul' }, [
        { ...doc, fileName: 'a\u0000.txt' },
      ]);
      const next = entry('nul', { path: '/after-nul' });
      await store.insertHistory([nul, next]);
      const got = await store.getHistory('nul', nul.entry.id);
      // PostgreSQL's text cannot hold the character: it reads back as U+FFFD there, as written in SQLite.
      const shown = b.name === 'postgres' ? '\ufffd' : '\u0000';
      assert.equal(got?.requestBody, `{${shown}\u0001}`);
      assert.equal(got?.responseBody, `a${shown}b`);
      // The entry's list of files is JSON (the character escaped); the file itself is there.
      assert.equal(got?.files[0]?.fileName, 'a\u0000.txt');
      assert.deepEqual((await store.getHistoryFile('nul', nul.entry.id, 'doc'))?.data, doc.data);
      assert.equal((await store.getHistory('nul', next.entry.id))?.path, '/after-nul');
      // Out of the way of the tests that count entries per endpoint.
      assert.equal(await store.deleteHistory('nul', {}), 2);
    });

    it('specs: one per endpoint, replaced by the next, listed without the document, deleted', async () => {
      const spec = {
        endpoint: 'other',
        type: 'openapi' as const,
        jobId: 'j1',
        intelligenceMock: false,
        title: 'Pets',
        version: '1.0.0',
        specVersion: '3.0.3',
        operations: [{ method: 'GET', path: '/pets' }],
        files: [],
        size: 12,
        createdAt: 7,
        document: '{"openapi":"3.0.3"}',
      };
      assert.equal(await store.getSpec('other'), undefined);
      await store.putSpec(spec);
      assert.deepEqual(await store.getSpec('other'), spec);
      await store.putSpec({ ...spec, jobId: 'j2', intelligenceMock: true, title: 'Pets 2' });
      const { document: _d, ...info } = spec;
      assert.deepEqual(await store.getSpecInfo('other'), {
        ...info,
        jobId: 'j2',
        intelligenceMock: true,
        title: 'Pets 2',
      });
      assert.equal(await store.getSpecInfo('shop'), undefined);
      assert.equal(await store.deleteSpec('other'), true);
      assert.equal(await store.deleteSpec('other'), false);
      assert.equal(await store.getSpec('other'), undefined);
    });

    it('gRPC specs: stored with their type, files and methods; replace an OpenAPI spec and back', async () => {
      const openapi = {
        endpoint: 'other',
        type: 'openapi' as const,
        jobId: 'o1',
        intelligenceMock: true,
        title: 'Pets',
        version: '1.0.0',
        specVersion: '3.1.0',
        operations: [{ method: 'GET', path: '/pets' }],
        files: [],
        size: 2,
        createdAt: 5,
        document: '{}',
      };
      const grpc = {
        endpoint: 'other',
        type: 'grpc' as const,
        jobId: 'g1',
        intelligenceMock: false,
        title: 'user.UserService',
        version: '',
        specVersion: 'proto3',
        operations: [
          {
            service: 'user.UserService',
            method: 'GetUser',
            name: 'user.UserService/GetUser',
            callType: 'unary',
            inputType: 'user.GetUserRequest',
            outputType: 'user.User',
          },
        ],
        files: ['user.proto', 'google/protobuf/timestamp.proto'],
        size: 3,
        createdAt: 6,
        document: Buffer.from([0x0a, 0x01, 0xff]).toString('base64'),
      };
      await store.putSpec(openapi);
      await store.putSpec(grpc);
      assert.deepEqual(await store.getSpec('other'), grpc);
      const { document: _d, ...info } = grpc;
      assert.deepEqual(await store.getSpecInfo('other'), info);
      await store.putSpec(openapi);
      assert.deepEqual(await store.getSpec('other'), openapi);
      assert.equal(await store.deleteSpec('other'), true);
    });

    it('spec jobs: created, updated, read per endpoint, only the newest kept', async () => {
      const job = (id: string, createdAt: number) => ({
        id,
        endpoint: 'other',
        type: 'oas' as const,
        status: 'QUEUED' as const,
        message: 'queued',
        progress: 0,
        result: null,
        createdAt,
        completedAt: null,
        failedAt: null,
      });
      await store.createSpecJob(job('job-a', 1));
      assert.deepEqual(await store.getSpecJob('other', 'job-a'), job('job-a', 1));
      assert.equal(await store.getSpecJob('shop', 'job-a'), undefined);
      assert.equal(
        await store.updateSpecJob('job-a', {
          status: 'COMPLETED',
          progress: 100,
          message: 'done',
          result: { operations: [{ method: 'GET', path: '/x' }] },
          completedAt: 9,
        }),
        true,
      );
      assert.deepEqual(await store.getSpecJob('other', 'job-a'), {
        ...job('job-a', 1),
        status: 'COMPLETED',
        progress: 100,
        message: 'done',
        result: { operations: [{ method: 'GET', path: '/x' }] },
        completedAt: 9,
      });
      assert.equal(await store.updateSpecJob('nope', { status: 'FAILED' }), false);
      const grpcJob = { ...job('job-g', 0), type: 'grpc' as const };
      await store.createSpecJob(grpcJob);
      assert.deepEqual(await store.getSpecJob('other', 'job-g'), grpcJob);
      await store.createSpecJob(job('job-b', 2), 2);
      await store.createSpecJob(job('job-c', 3), 2);
      assert.equal(await store.getSpecJob('other', 'job-a'), undefined);
      assert.equal((await store.getSpecJob('other', 'job-b'))?.id, 'job-b');
      assert.equal((await store.getSpecJob('other', 'job-c'))?.id, 'job-c');
    });

    it('meta values upsert', async () => {
      assert.equal(await store.getMeta('k'), undefined);
      await store.setMeta('k', 'a');
      await store.setMeta('k', 'b');
      assert.equal(await store.getMeta('k'), 'b');
    });

    it('a meta value claimed keeps the first value, claims racing included', async () => {
      assert.equal(await store.claimMeta('claimed', 'first'), 'first');
      assert.equal(await store.claimMeta('claimed', 'second'), 'first');
      const racing = await Promise.all(['x', 'y', 'z'].map((v) => store.claimMeta('raced', v)));
      assert.equal(new Set(racing).size, 1, `every claim sees one value: ${racing.join(', ')}`);
      assert.equal(await store.getMeta('raced'), racing[0]);
    });

    it('endpoints: create refuses a duplicate, settings round-trip', async () => {
      assert.equal(await store.createEndpoint({ name: 'shop', createdAt: 1, settings: {} }), false);
      assert.equal(await store.updateEndpointSettings('shop', { locale: 'de', nested: { a: [1, 2] } }), true);
      assert.deepEqual((await store.getEndpoint('shop'))?.settings, { locale: 'de', nested: { a: [1, 2] } });
      assert.equal(await store.updateEndpointSettings('nope', {}), false);
      assert.equal(await store.getEndpoint('nope'), undefined);
    });

    it('api keys: stored by hash, listed, deleted', async () => {
      await store.createApiKey({ id: 'k1', hash: 'h1', endpoint: 'shop', createdAt: 5 });
      assert.deepEqual(await store.findApiKeyByHash('h1'), {
        id: 'k1',
        hash: 'h1',
        endpoint: 'shop',
        createdAt: 5,
      });
      assert.ok((await store.listApiKeys()).some((k) => k.id === 'k1'));
      assert.equal(await store.deleteApiKey('k1'), true);
      assert.equal(await store.deleteApiKey('k1'), false);
      assert.equal(await store.findApiKeyByHash('h1'), undefined);
    });

    it('rules keep their order through append, delete, reorder and replace', async () => {
      for (const id of ['a', 'b', 'c', 'd'])
        await store.appendRule('shop', { id, data: { description: id } });
      const ids = async (): Promise<string[]> => (await store.listRules('shop')).map((r) => r.id);
      assert.deepEqual(await ids(), ['a', 'b', 'c', 'd']);
      assert.equal(await store.deleteRule('shop', 'b'), true);
      assert.equal(await store.deleteRule('shop', 'b'), false);
      assert.deepEqual(await ids(), ['a', 'c', 'd']);
      await store.appendRule('shop', { id: 'e', data: {} });
      assert.deepEqual(await ids(), ['a', 'c', 'd', 'e']);
      assert.equal(await store.reorderRules('shop', ['e', 'zzz', 'c']), 2);
      assert.deepEqual(await ids(), ['e', 'c', 'a', 'd']);
      assert.equal(await store.updateRule('shop', { id: 'c', data: { description: 'changed' } }), true);
      assert.deepEqual((await store.getRule('shop', 'c'))?.data, { description: 'changed' });
      assert.deepEqual(await ids(), ['e', 'c', 'a', 'd']);
      assert.equal(await store.getRule('other', 'c'), undefined);
      assert.equal(await store.countRules('shop'), 4);
      assert.equal(
        await store.replaceRules('shop', [
          { id: 'x', data: {} },
          { id: 'y', data: {} },
        ]),
        2,
      );
      assert.deepEqual(await ids(), ['x', 'y']);
      assert.equal(await store.deleteAllRules('shop'), 2);
      assert.deepEqual(await ids(), []);
    });

    it('history: insert, list newest first with cursor pages, filters, delete with files', async () => {
      const entries = [
        entry('shop', {
          method: 'POST',
          path: '/orders',
          status: 201,
          requestBody: '{"sku":"A1"}',
          behavior: 'mock-rule',
          ruleMatched: true,
          ruleId: 'r1',
        }),
        entry('shop', { path: '/users/7', status: 404, responseBody: 'Not Found' }),
        entry('shop', { path: '/users/8', status: 200 }, [
          {
            fieldName: 'doc',
            fileName: 'a.txt',
            contentType: 'text/plain',
            size: 3,
            data: Buffer.from('abc'),
          },
        ]),
        entry('other'),
      ];
      await store.insertHistory(entries);
      const p1 = await store.listHistory('shop', {}, 2);
      assert.deepEqual(
        p1.data.map((e) => e.id),
        [entries[2]!.entry.id, entries[1]!.entry.id],
      );
      assert.equal(p1.hasMore, true);
      const p2 = await store.listHistory('shop', {}, 2, p1.cursor!);
      assert.deepEqual(
        p2.data.map((e) => e.id),
        [entries[0]!.entry.id],
      );
      assert.equal(p2.hasMore, false);
      assert.equal(p2.cursor, null);
      assert.deepEqual(p2.data[0]!.ruleId, 'r1');
      assert.equal(p2.data[0]!.ruleMatched, true);

      assert.equal(await store.countHistory('shop', {}), 3);
      assert.equal(await store.countHistory('shop', { status: 404 }), 1);
      assert.equal(await store.countHistory('shop', { method: 'post' }), 1);
      assert.equal(await store.countHistory('shop', { path: { substring: '/users' } }), 2);
      assert.equal(await store.countHistory('shop', { path: { substring: '/USERS' } }), 0);
      assert.equal(await store.countHistory('shop', { path: { regex: '^/users/[0-9]+$' } }), 2);
      assert.equal(await store.countHistory('shop', { ruleMatched: true }), 1);
      assert.equal(await store.countHistory('shop', { behavior: 'mock-rule' }), 1);
      assert.equal(await store.countHistory('shop', { requestBody: 'A1' }), 1);
      assert.equal(await store.countHistory('shop', { responseBody: 'Not' }), 1);
      assert.equal(
        await store.countHistory('shop', {
          dateFrom: entries[1]!.entry.createdAt,
          dateTo: entries[2]!.entry.createdAt,
        }),
        2,
      );
      assert.equal(await store.countHistory('shop', { status: 200, path: { substring: '/users' } }), 1);

      const file = await store.getHistoryFile('shop', entries[2]!.entry.id, 'doc');
      assert.equal(file?.data.toString(), 'abc');
      assert.equal(file?.fileName, 'a.txt');
      assert.equal(await store.deleteHistory('shop', { path: { substring: '/users/8' } }), 1);
      assert.equal(await store.getHistoryFile('shop', entries[2]!.entry.id, 'doc'), undefined);
      assert.equal(await store.deleteHistoryEntry('shop', entries[1]!.entry.id), true);
      assert.equal(await store.deleteHistoryEntry('shop', entries[1]!.entry.id), false);
      assert.equal(await store.deleteHistory('shop', {}), 1);
      assert.equal(await store.countHistory('other', {}), 1, 'other endpoints untouched');
    });

    it('history: pruning by age and by count per endpoint', async () => {
      await store.deleteHistory('other', {});
      const old = entry('other', { createdAt: 1000 });
      const recent = [1, 2, 3].map(() => entry('other'));
      await store.insertHistory([old, ...recent]);
      assert.equal(await store.pruneHistory(2000, 100), 1);
      assert.equal(await store.pruneHistory(2000, 2), 1);
      const left = await store.listHistory('other', {}, 10);
      assert.deepEqual(
        left.data.map((e) => e.id),
        [recent[2]!.entry.id, recent[1]!.entry.id],
      );
    });

    it('history: retention deletes in chunks, oldest first, yielding to requests between them', async () => {
      await store.createEndpoint({ name: 'aged', createdAt: 1, settings: {} });
      const old = [1, 2, 3, 4, 5].map((t) => entry('aged', { createdAt: t * 100 }, [doc]));
      const recent = [1, 2, 3, 4].map(() => entry('aged', {}, [doc]));
      await store.insertHistory([...old, ...recent]);
      let turns = 0;
      let spinning = true;
      const spin = (): void => {
        if (!spinning) return;
        turns++;
        setImmediate(spin);
      };
      setImmediate(spin);
      // Five expired (three chunks of two), then the cap of 3 takes the oldest recent one.
      const pruned = await store.pruneHistory(1000, 3, 2);
      spinning = false;
      assert.equal(pruned, 6);
      assert.ok(turns >= 2, `the event loop turned between chunks (${turns} turns)`);
      assert.deepEqual(
        (await store.listHistory('aged', {}, 10)).data.map((e) => e.id),
        recent
          .slice(1)
          .map((e) => e.entry.id)
          .reverse(),
      );
      const files = await store.db
        .selectFrom('request_files')
        .select('request_id')
        .where('endpoint', '=', 'aged')
        .execute();
      assert.equal(files.length, 3, 'the files of pruned entries are gone too');
      await store.deleteHistory('aged', {}); // leaves the later tests' counts alone
    });

    it('history: trimming an endpoint to its caps drops its oldest entries by count, then by bytes', async () => {
      await store.createEndpoint({ name: 'capped', createdAt: 1, settings: {} });
      const big = 'x'.repeat(10_000);
      const kept = [1, 2, 3, 4, 5, 6].map((t) => entry('capped', { createdAt: t * 1000, requestBody: big }));
      await store.insertHistory([...kept, entry('other', { requestBody: big })]);
      const roomy = { maxEntries: 100, maxBytes: 1e9 };
      const measured = await store.trimHistory('capped', roomy);
      assert.equal(measured.entries, 6);
      assert.equal(measured.deleted, 0);
      assert.ok(
        measured.bytes > 60_000 && measured.bytes < 64_000,
        `each entry weighs its body (${measured.bytes})`,
      );

      const byCount = await store.trimHistory('capped', { maxEntries: 4, maxBytes: 1e9 });
      assert.deepEqual([byCount.entries, byCount.deleted], [4, 2]);
      // Three entries' worth of bytes: the oldest of the four goes.
      const byBytes = await store.trimHistory('capped', { maxEntries: 100, maxBytes: 3 * 10_500 });
      assert.deepEqual([byBytes.entries, byBytes.deleted], [3, 1]);
      assert.ok(byBytes.bytes <= 3 * 10_500);
      assert.deepEqual(
        (await store.listHistory('capped', {}, 10)).data.map((e) => e.id),
        kept
          .slice(3)
          .map((e) => e.entry.id)
          .reverse(),
        'the newest are kept',
      );
      assert.equal((await store.trimHistory('other', roomy)).deleted, 0, 'other endpoints untouched');
      await store.deleteHistory('capped', {});
      await store.deleteHistory('other', {});
    });

    it('history: a trim drops the oldest visible entries with their files, leaves hidden ones to the purge and other endpoints alone', async () => {
      await store.createEndpoint({ name: 'trimmed', createdAt: 1, settings: {} });
      const at = (t: number, over: Partial<HistoryEntry> = {}, files: (typeof doc)[] = []) =>
        entry('trimmed', { createdAt: t * 1000, ...over }, files);
      const rowsOf = async (endpoint: string) =>
        (await store.db.selectFrom('requests').select('id').where('endpoint', '=', endpoint).execute())
          .map((r) => r.id)
          .sort();
      const filesOf = async () =>
        (
          await store.db
            .selectFrom('request_files')
            .select('request_id')
            .where('endpoint', '=', 'trimmed')
            .execute()
        ).map((f) => f.request_id);
      // Same millisecond for two of them: the order goes by id within it, as the trim's read does.
      const plain = [at(1, {}, [doc]), at(2, { id: 'b' }), at(2, { id: 'a' }), at(3, {}, [doc]), at(4)];
      const older = entry('untouched', { createdAt: 1 });
      await store.insertHistory([...plain, older]);
      const first = await store.trimHistory('trimmed', { maxEntries: 2, maxBytes: 1e9 });
      assert.deepEqual([first.entries, first.deleted], [2, 3]);
      assert.deepEqual(await rowsOf('trimmed'), [plain[3]!, plain[4]!].map((e) => e.entry.id).sort());
      assert.deepEqual(await filesOf(), [plain[3]!.entry.id], 'the files of dropped entries go with them');
      assert.deepEqual(await rowsOf('untouched'), [older.entry.id]);

      // With entries hidden (deleted, not yet purged), the trim counts and drops visible ones only.
      const later = [at(5, { status: 404 }), at(6, {}, [doc]), at(7, { status: 404 }), at(8)];
      await store.insertHistory(later);
      assert.equal(await store.deleteHistory('trimmed', { status: 404 }), 2);
      const second = await store.trimHistory('trimmed', { maxEntries: 1, maxBytes: 1e9 });
      assert.deepEqual([second.entries, second.deleted], [1, 3]);
      assert.deepEqual(
        (await store.listHistory('trimmed', {}, 10)).data.map((e) => e.id),
        [later[3]!.entry.id],
      );
      assert.deepEqual(
        await rowsOf('trimmed'),
        [later[0]!, later[2]!, later[3]!].map((e) => e.entry.id).sort(),
        'hidden entries, older ones too, stay for the purge',
      );
      assert.deepEqual(await filesOf(), [], 'the files of dropped entries go with them');
      while ((await store.purgeHistory(100)) > 0);
      await store.deleteHistory('trimmed', {});
      await store.deleteHistory('untouched', {});
    });

    it('history: a delete hides entries at once; the purge removes them and their files for good', async () => {
      await store.createEndpoint({ name: 'purge', createdAt: 1, settings: {} });
      while ((await store.purgeHistory(100)) > 0); // what earlier tests deleted
      const gone = [
        entry('purge', { status: 404 }, [doc]),
        entry('purge', { status: 404 }),
        entry('purge', { status: 404 }),
      ];
      const kept = [entry('purge', { status: 200 }, [doc]), entry('purge', { status: 200 })];
      await store.insertHistory([...gone, ...kept]);
      const keptIds = kept.map((e) => e.entry.id).reverse();

      assert.equal(await store.deleteHistory('purge', { status: 404 }), 3);
      // Gone from every read before any purge ran.
      assert.equal(await store.historyPurgeBacklog(), 3);
      assert.equal(await store.countHistory('purge', {}), 2);
      assert.equal(await store.countHistory('purge', { status: 404 }), 0);
      assert.deepEqual(
        (await store.listHistory('purge', {}, 10)).data.map((e) => e.id),
        keptIds,
      );
      assert.equal(await store.getHistory('purge', gone[0]!.entry.id), undefined);
      assert.equal(await store.getHistoryFile('purge', gone[0]!.entry.id, 'doc'), undefined);
      assert.equal(await store.deleteHistoryEntry('purge', gone[1]!.entry.id), false);
      assert.equal(await store.deleteHistory('purge', { status: 404 }), 0, 'a second delete counts nothing');
      assert.equal(await store.pruneHistory(0, 2), 0, 'hidden entries do not count towards the cap');

      // An entry recorded after the delete is not part of it.
      const later = entry('purge', { status: 404 });
      await store.insertHistory([later]);
      assert.equal(await store.countHistory('purge', { status: 404 }), 1);

      assert.equal(await store.purgeHistory(2), 2);
      assert.equal(await store.purgeHistory(2), 1);
      assert.equal(await store.purgeHistory(2), 0);
      assert.equal(await store.historyPurgeBacklog(), 0);
      const rows = await store.db
        .selectFrom('requests')
        .select('id')
        .where('endpoint', '=', 'purge')
        .execute();
      assert.deepEqual(
        rows.map((r) => r.id).sort(),
        [...keptIds, later.entry.id].sort(),
        'rows deleted on disk',
      );
      const files = await store.db
        .selectFrom('request_files')
        .select('request_id')
        .where('endpoint', '=', 'purge')
        .execute();
      assert.deepEqual(
        files.map((f) => f.request_id),
        [kept[0]!.entry.id],
        'files deleted on disk',
      );
      assert.equal((await store.getHistoryFile('purge', kept[0]!.entry.id, 'doc'))?.data.toString(), 'abc');
      assert.equal(await store.countHistory('purge', {}), 3);
    });

    it('history: a batch written twice (a retried write) stores its entries and files once', async () => {
      await store.createEndpoint({ name: 'retry', createdAt: 1, settings: {} });
      const first = entry('retry', {}, [doc]);
      await store.insertHistory([first]);
      const second = entry('retry', {}, [doc]);
      // The retry carries the entry already written and one that was not.
      await store.insertHistory([first, second]);
      assert.equal(await store.countHistory('retry', {}), 2);
      const files = await store.db
        .selectFrom('request_files')
        .select('request_id')
        .where('endpoint', '=', 'retry')
        .execute();
      assert.deepEqual(files.map((f) => f.request_id).sort(), [first.entry.id, second.entry.id].sort());
    });

    it('deletes running at the same time count each entry once', async () => {
      await store.createEndpoint({ name: 'race', createdAt: 1, settings: {} });
      const batch = Array.from({ length: 300 }, (_, i) => entry('race', { status: i % 2 === 0 ? 404 : 200 }));
      await store.insertHistory(batch);
      const counts = await Promise.all([
        store.deleteHistory('race', { status: 404 }),
        store.deleteHistory('race', {}),
        store.deleteHistory('race', { status: 404 }),
      ]);
      assert.equal(
        counts.reduce((a, b) => a + b, 0),
        300,
      );
      assert.equal(await store.countHistory('race', {}), 0);
    });

    it('deleting an endpoint also drops its entries waiting for the purge', async () => {
      await store.createEndpoint({ name: 'half', createdAt: 1, settings: {} });
      await store.insertHistory([entry('half'), entry('half')]);
      assert.equal(await store.deleteHistory('half', {}), 2);
      const before = await store.historyPurgeBacklog();
      assert.equal(await store.deleteEndpoint('half'), true);
      assert.equal(await store.historyPurgeBacklog(), before - 2);
      await store.createEndpoint({ name: 'half', createdAt: 2, settings: {} });
      const again = entry('half');
      await store.insertHistory([again]);
      assert.deepEqual(
        (await store.listHistory('half', {}, 10)).data.map((e) => e.id),
        [again.entry.id],
      );
    });

    it('state items upsert, list and delete', async () => {
      assert.equal(await store.putState('shop', { type: 'counter', key: 'hits', value: 1 }), true);
      assert.equal(await store.putState('shop', { type: 'counter', key: 'hits', value: 2 }), false);
      await store.putState('shop', { type: 'list', key: 'l', value: [1, 'a'] });
      assert.deepEqual((await store.getState('shop', 'counter', 'hits'))?.value, 2);
      assert.equal((await store.listState('shop')).length, 2);
      assert.equal(await store.deleteState('shop', 'list', 'l'), true);
      assert.equal(await store.deleteAllState('shop'), 1);
    });

    it('state: a counter added to 1,000 times at once reads 1,000 (one statement each, no lost update)', async () => {
      await Promise.all(
        Array.from({ length: 1000 }, () => store.applyState('par', [{ op: 'add', key: 'hits', by: 1 }], 5)),
      );
      const hits = await store.getState('par', 'counter', 'hits');
      assert.equal(hits?.value, 1000);
      assert.equal(hits?.lastModified, 5);
      await store.applyState('par', [{ op: 'add', key: 'hits', by: -1000 }], 6);
      assert.equal((await store.getState('par', 'counter', 'hits'))?.value, 0);
    });

    it('state: lists are appended to and cut in place, objects keep their key order, bounds hold', async () => {
      const push = (value: Json, maxLength = 3) =>
        store.applyState('lists', [{ op: 'push', key: 'l', value, maxLength, maxChars: 1000 }], 1);
      await Promise.all([push({ z: 1, a: 2 }), push('x')]);
      await push([1, 2]);
      await push('over the length');
      const l = (await store.getState('lists', 'list', 'l'))!.value as Json[];
      assert.equal(l.length, 3);
      assert.deepEqual(l[2], [1, 2]);
      const obj = l.find((v) => typeof v === 'object' && !Array.isArray(v));
      assert.deepEqual(Object.keys(obj as object), ['z', 'a']);
      await store.applyState('lists', [{ op: 'pop', key: 'l' }], 2);
      assert.equal(((await store.getState('lists', 'list', 'l'))!.value as Json[]).length, 2);
      await store.applyState(
        'lists',
        [
          { op: 'pop', key: 'l' },
          { op: 'pop', key: 'l' },
          { op: 'pop', key: 'l' },
        ],
        3,
      );
      assert.deepEqual((await store.getState('lists', 'list', 'l'))!.value, []);
      await push('again');
      assert.deepEqual((await store.getState('lists', 'list', 'l'))!.value, ['again']);
      await store.applyState(
        'lists',
        [{ op: 'push', key: 'big', value: 'x'.repeat(20), maxLength: 10, maxChars: 30 }],
        1,
      );
      await store.applyState(
        'lists',
        [{ op: 'push', key: 'big', value: 'y'.repeat(20), maxLength: 10, maxChars: 30 }],
        1,
      );
      assert.deepEqual((await store.getState('lists', 'list', 'big'))!.value, ['x'.repeat(20)]);
    });

    it('state: set, delete, read by name, page and bulk put/delete', async () => {
      await store.applyState(
        'pages',
        [
          { op: 'set', type: 'string', key: 'user', value: { name: 'Ada' } },
          { op: 'set', type: 'string', key: 'gone', value: 'x' },
          { op: 'delete', type: 'string', key: 'gone' },
          { op: 'set', type: 'counter', key: 'user', value: 7 },
        ],
        9,
      );
      const read = await store.readState('pages', [
        { type: 'string', key: 'user' },
        { type: 'list', key: 'user' },
      ]);
      assert.equal(read.count, 2);
      assert.deepEqual(read.items, [
        { type: 'string', key: 'user', value: { name: 'Ada' }, lastModified: 9 },
      ]);
      assert.equal((await store.readState('pages', 'all')).items.length, 2);
      const put = await store.putStateItems(
        'pages',
        [
          { type: 'string', key: 'user', value: 'Bob' },
          { type: 'string', key: 'a_1', value: 1 },
          { type: 'string', key: 'a%2', value: 2 },
          { type: 'string', key: 'a_1', value: 3 },
        ],
        10,
      );
      assert.deepEqual(put, { created: 2, updated: 1 });
      assert.equal(await store.countState('pages'), 4);
      const page = await store.pageState('pages', { limit: 1, offset: 1, type: 'string' });
      assert.equal(page.total, 3);
      assert.deepEqual(
        page.items.map((i) => i.key),
        ['a_1'],
      );
      const prefixed = await store.pageState('pages', { limit: 10, offset: 0, keyPrefix: 'a_' });
      assert.deepEqual(
        prefixed.items.map((i) => [i.key, i.value]),
        [['a_1', 3]],
      );
      assert.equal(
        await store.deleteStateItems('pages', [
          { type: 'string', key: 'a_1' },
          { type: 'list', key: 'nothing' },
        ]),
        1,
      );
      assert.equal(await store.countState('pages'), 3);
    });

    it('deleting an endpoint removes its rules, history, files, state and keys', async () => {
      await store.createEndpoint({ name: 'gone', createdAt: 1, settings: {} });
      await store.appendRule('gone', { id: 'g1', data: {} });
      const gone = entry('gone', {}, [
        { fieldName: 'f', fileName: 'f', contentType: 'x/y', size: 1, data: Buffer.from('z') },
      ]);
      const e = gone.entry;
      await store.insertHistory([gone]);
      await store.putState('gone', { type: 'string', key: 's', value: 'v' });
      await store.createApiKey({ id: 'gk', hash: 'gh', endpoint: 'gone', createdAt: 1 });
      assert.equal(await store.deleteEndpoint('gone'), true);
      assert.equal(await store.deleteEndpoint('gone'), false);
      assert.deepEqual(await store.listRules('gone'), []);
      assert.equal(await store.countHistory('gone', {}), 0);
      assert.equal(await store.getHistoryFile('gone', e.id, 'f'), undefined);
      assert.deepEqual(await store.listState('gone'), []);
      assert.equal(await store.findApiKeyByHash('gh'), undefined);
    });

    it('deleting an endpoint removes its spec and its jobs', async () => {
      await store.createEndpoint({ name: 'specced', createdAt: 1, settings: {} });
      await store.putSpec({
        endpoint: 'specced',
        type: 'openapi',
        jobId: 'sj',
        intelligenceMock: false,
        title: 't',
        version: '1',
        specVersion: '3.1.0',
        operations: [],
        files: [],
        size: 2,
        createdAt: 1,
        document: '{}',
      });
      await store.createSpecJob({
        id: 'sj',
        endpoint: 'specced',
        type: 'oas',
        status: 'COMPLETED',
        message: '',
        progress: 100,
        result: null,
        createdAt: 1,
        completedAt: 2,
        failedAt: null,
      });
      assert.equal(await store.deleteEndpoint('specced'), true);
      assert.equal(await store.getSpec('specced'), undefined);
      assert.equal(await store.getSpecJob('specced', 'sj'), undefined);
    });

    // ---- CRUD collections (issue 13 part 3) ----
    const caps = { maxItems: 3, maxEndpointItems: 5, maxEndpointBytes: 10_000, maxItemBytes: 1000 };
    const crudItem = (id: string, at: number, data: Record<string, string | number> = {}) => ({
      id,
      data: { id, ...data },
      createdAt: at,
      updatedAt: at,
    });

    it('CRUD items: insert refuses a taken id, list newest first with limit and offset, get, delete', async () => {
      for (const [i, id] of ['a', 'b', 'c'].entries())
        assert.deepEqual(await store.insertCrudItem('shop', '/users', crudItem(id, 100 + i), caps), {
          ok: true,
        });
      assert.deepEqual(await store.insertCrudItem('shop', '/users', crudItem('a', 200), caps), {
        ok: false,
        why: 'conflict',
      });
      // Another collection and another endpoint hold their own ids.
      assert.deepEqual(await store.insertCrudItem('shop', '/orders', crudItem('a', 1), caps), { ok: true });
      assert.deepEqual(await store.insertCrudItem('other', '/users', crudItem('a', 1), caps), { ok: true });
      const page = await store.listCrudItems('shop', '/users', 2, 0);
      assert.equal(page.total, 3);
      assert.deepEqual(
        page.items.map((i) => i.id),
        ['c', 'b'],
      );
      assert.deepEqual(
        (await store.listCrudItems('shop', '/users', 2, 2)).items.map((i) => i.id),
        ['a'],
      );
      assert.deepEqual(await store.getCrudItem('shop', '/users', 'b'), crudItem('b', 101));
      assert.equal(await store.getCrudItem('shop', '/users', 'zz'), undefined);
      assert.deepEqual(await store.deleteCrudItem('shop', '/users', 'b'), crudItem('b', 101));
      assert.equal(await store.deleteCrudItem('shop', '/users', 'b'), undefined);
      assert.equal((await store.listCrudItems('shop', '/users', 10, 0)).total, 2);
    });

    it('CRUD items: a list page bounded in bytes, as the JSON texts stored, at least one item', async () => {
      await store.createEndpoint({ name: 'paged', createdAt: 1, settings: {} });
      for (const [i, id] of ['p1', 'p2', 'p3'].entries())
        await store.insertCrudItem('paged', '/paged', crudItem(id, i), caps);
      const text = (id: string) => JSON.stringify(crudItem(id, 0).data);
      const whole = `[${text('p3')},${text('p2')},${text('p1')}]`;
      const all = await store.listCrudPage('paged', '/paged', 10, 0, whole.length);
      assert.deepEqual(all, { texts: [text('p3'), text('p2'), text('p1')], bytes: whole.length, total: 3 });
      const two = await store.listCrudPage('paged', '/paged', 10, 0, whole.length - 1);
      assert.deepEqual(two.texts, [text('p3'), text('p2')]);
      assert.equal(two.bytes, `[${text('p3')},${text('p2')}]`.length);
      assert.deepEqual((await store.listCrudPage('paged', '/paged', 10, 2, 1)).texts, [text('p1')]);
      assert.deepEqual((await store.listCrudPage('paged', '/paged', 1, 0, 1 << 20)).texts, [text('p3')]);
      assert.deepEqual(await store.listCrudPage('paged', '/none', 10, 0, 100), {
        texts: [],
        bytes: 2,
        total: 0,
      });
    });

    it('CRUD items: two creations of one id at once store it once', async () => {
      const results = await Promise.all(
        [1, 2, 3, 4].map((n) => store.insertCrudItem('shop', '/race', crudItem('same', n, { n }), caps)),
      );
      assert.equal(results.filter((r) => r.ok).length, 1);
      assert.equal((await store.listCrudItems('shop', '/race', 10, 0)).total, 1);
    });

    it('CRUD items: update applies the change in a transaction, keeps the creation time', async () => {
      await store.insertCrudItem('shop', '/upd', crudItem('u', 10, { name: 'x', age: 1 }), caps);
      const r = await store.updateCrudItem('shop', '/upd', 'u', (old) => ({ ...old, age: 2 }), 50, caps);
      assert.deepEqual(r, {
        ok: true,
        item: { id: 'u', data: { id: 'u', name: 'x', age: 2 }, createdAt: 10, updatedAt: 50 },
      });
      assert.equal(await store.updateCrudItem('shop', '/upd', 'nope', (o) => o, 50, caps), undefined);
      // Concurrent merges each see the other's write.
      await Promise.all(
        ['f1', 'f2', 'f3'].map((f) =>
          store.updateCrudItem('shop', '/upd', 'u', (old) => ({ ...old, [f]: true }), 60, caps),
        ),
      );
      const data = (await store.getCrudItem('shop', '/upd', 'u'))?.data;
      assert.deepEqual(data, { id: 'u', name: 'x', age: 2, f1: true, f2: true, f3: true });
      const big = 'x'.repeat(2000);
      assert.deepEqual(await store.updateCrudItem('shop', '/upd', 'u', (o) => ({ ...o, big }), 70, caps), {
        ok: false,
        why: 'too_large',
      });
    });

    it('CRUD items: caps per collection, per endpoint (items and bytes) and per item, at the limit and past it', async () => {
      await store.createEndpoint({ name: 'capped', createdAt: 1, settings: {} });
      const put = (col: string, id: string, data: Record<string, string> = {}) =>
        store.insertCrudItem('capped', col, crudItem(id, 1, data), caps);
      // maxItems 3: the third fits, the fourth does not.
      assert.deepEqual(await put('/a', '1'), { ok: true });
      assert.deepEqual(await put('/a', '2'), { ok: true });
      assert.deepEqual(await put('/a', '3'), { ok: true });
      assert.deepEqual(await put('/a', '4'), { ok: false, why: 'collection_full' });
      // maxEndpointItems 5 across collections.
      assert.deepEqual(await put('/b', '1'), { ok: true });
      assert.deepEqual(await put('/b', '2'), { ok: true });
      assert.deepEqual(await put('/b', '3'), { ok: false, why: 'endpoint_full' });
      // maxItemBytes 1000: the JSON text `{"id":"s","p":"…"}` is 17 bytes plus the padding.
      await store.createEndpoint({ name: 'sized', createdAt: 1, settings: {} });
      const sized = (id: string, bytes: number) =>
        store.insertCrudItem('sized', '/s', crudItem(id, 1, { p: 'x'.repeat(bytes - 17) }), caps);
      assert.deepEqual(await sized('s', 1000), { ok: true });
      assert.deepEqual(await sized('t', 1001), { ok: false, why: 'too_large' });
      // maxEndpointBytes: what the endpoint already holds counts.
      const tight = { ...caps, maxEndpointBytes: 1999 };
      const p = 'x'.repeat(1000 - 17);
      assert.deepEqual(await store.insertCrudItem('sized', '/s', crudItem('u', 1, { p }), tight), {
        ok: false,
        why: 'endpoint_full',
      });
      assert.deepEqual(
        await store.insertCrudItem('sized', '/s', crudItem('u', 1, { p }), {
          ...tight,
          maxEndpointBytes: 2000,
        }),
        { ok: true },
      );
    });

    it('CRUD items: deleted by age per endpoint, and with their endpoint', async () => {
      await store.createEndpoint({ name: 'aging', createdAt: 1, settings: {} });
      const roomy = { ...caps, maxItems: 100, maxEndpointItems: 100 };
      for (let i = 0; i < 7; i++)
        await store.insertCrudItem('aging', `/c${i % 2}`, crudItem(`i${i}`, 1000 + i), roomy);
      await store.insertCrudItem('shop', '/aging', crudItem('keep', 1000), roomy);
      assert.equal(await store.deleteCrudItemsBefore('aging', 1005, 2), 5);
      assert.deepEqual(
        [
          ...(await store.listCrudItems('aging', '/c0', 10, 0)).items,
          ...(await store.listCrudItems('aging', '/c1', 10, 0)).items,
        ].map((i) => i.id),
        ['i6', 'i5'],
      );
      assert.ok(await store.getCrudItem('shop', '/aging', 'keep'));
      assert.equal(await store.deleteEndpoint('aging'), true);
      assert.equal((await store.listCrudItems('aging', '/c1', 10, 0)).total, 0);
    });
    // ---- end CRUD collections ----

    it('TOTP records: insert, touch, purge by last use', async () => {
      await store.insertTotp({
        id: 't1',
        issuer: 'Acme',
        algorithm: 'SHA1',
        digits: 6,
        period: 30,
        secretEnc: 'enc',
        createdAt: 10,
        lastUsedAt: 10,
      });
      await store.touchTotp('t1', 5000);
      assert.equal((await store.getTotp('t1'))?.lastUsedAt, 5000);
      assert.equal(await store.purgeTotp(4000), 0);
      assert.equal(await store.purgeTotp(6000), 1);
      assert.equal(await store.getTotp('t1'), undefined);
    });
  });
}
