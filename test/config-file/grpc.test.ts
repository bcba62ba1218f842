/**
 * Mocks as code and the typed client know gRPC (issue 34, item 7): a file's `grpc: <file.proto>` uploads
 * the endpoint's descriptors beside its gRPC rules, loading it again changes nothing, a file naming both
 * documents or a proto that does not compile is refused with the field; the client uploads .proto text
 * and descriptor sets, and its rule type takes the grpc action.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadConfigFile } from '../../src/config-file/index.js';
import { Mockingbird, type RuleInput } from '../../src/client/index.js';
import { compileUpload } from '../../src/grpc/runtime.js';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { protoClient, unary } from '../helpers/grpc.js';
import { SHOP_PROTO } from '../grpc/fixtures.js';
import { tempFiles } from './helpers.js';

const FILE = `endpoints:
  shop:
    grpc: shop.proto
    rules:
      - conditions: [{ type: grpc_method, value: shop.v1.Shop/Get }]
        action:
          type: grpc
          callType: unary
          responses: [{ body: '{"id": "{{body ''id''}}", "name": "from the file"}' }]
`;

export const typed: RuleInput = {
  conditions: [{ type: 'grpc_method', operator: 'equals', value: 'shop.v1.Shop/Get' }],
  action: { type: 'grpc', callType: 'unary', responses: [{ body: '{"id": "x"}', metadata: {} }] },
};

let app: TestApp;
before(async () => {
  app = await startApp({}, { listen: true });
});
after(async () => app.stop());

/** The endpoint's spec: its type and the job that stored it. */
async function specOf(ep: string): Promise<{ jobId: string; type: string }> {
  const r = await fetch(`${app.url}/api/v2/endpoints/${ep}/specs`, {
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
  });
  return ((await r.json()) as { data: { jobId: string; type: string } }).data;
}

test('a file with grpc: and gRPC rules loads, answers calls, and loads again without a new upload', async () => {
  const dir = tempFiles({ 'm.yaml': FILE, 'shop.proto': SHOP_PROTO });
  await loadConfigFile(app.ctx, join(dir, 'm.yaml'));
  const client = protoClient(SHOP_PROTO, 'shop.v1.Shop', `127.0.0.1:${app.port}`, {
    authority: 'shop.localhost',
  });
  try {
    assert.deepEqual(await unary(client, 'Get', { id: 'q' }), { id: 'q', name: 'from the file' });
  } finally {
    client.close();
  }
  const first = await specOf('shop');
  assert.equal(first.type, 'grpc');
  await loadConfigFile(app.ctx, join(dir, 'm.yaml'));
  assert.equal((await specOf('shop')).jobId, first.jobId, 'the same descriptors: no new upload');
});

test('a file naming openapi and grpc, or a proto that does not compile, is refused at the field', async () => {
  const both = tempFiles({
    'm.yaml': 'endpoints:\n  two:\n    openapi: a.yaml\n    grpc: shop.proto\n',
    'shop.proto': SHOP_PROTO,
    'a.yaml': 'openapi: 3.0.0\ninfo: { title: a, version: "1" }\npaths: {}\n',
  });
  await assert.rejects(
    loadConfigFile(app.ctx, join(both, 'm.yaml')),
    /endpoints\/two\/grpc.*openapi or grpc, not both/s,
  );
  const broken = tempFiles({
    'm.yaml': 'endpoints:\n  broken:\n    grpc: b.proto\n',
    'b.proto': 'syntax = "proto3";\nservice S { rpc }\n',
  });
  await assert.rejects(
    loadConfigFile(app.ctx, join(broken, 'm.yaml')),
    /endpoints\/broken\/grpc.*b\.proto:2/s,
  );
});

test('the typed client uploads .proto text and a descriptor set, and takes a grpc rule', async () => {
  const mb = new Mockingbird({ baseUrl: app.url, apiKey: ADMIN_KEY });
  const ep = await mb.createEndpoint('typed-grpc');
  const text = await ep.uploadProto(SHOP_PROTO);
  assert.equal(text.type, 'grpc');
  const set = compileUpload({ data: Buffer.from(SHOP_PROTO), filename: 'shop.proto' }).descriptorSet;
  const binary = await ep.uploadProto(set);
  assert.equal(binary.type, 'grpc');
  for (let i = 0; i < 100 && (await ep.job(binary.jobId)).status !== 'COMPLETED'; i++)
    await new Promise((r) => setTimeout(r, 20));
  assert.equal((await ep.spec()).type, 'grpc');
  const saved = await ep.addRule(typed);
  assert.equal(saved.action.type, 'grpc');
});
