/**
 * The mTLS pipeline step on its own: endpoints that do not ask for certificates pay nothing (the step
 * passes synchronously and never reads the store), and one that does reads its CA and certificates
 * once per cached endpoint record, not once per request.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mtlsStep } from '../../src/mtls/index.js';
import { issueClientCert, makeCa } from '../../src/mtls/x509.js';
import type { Exchange } from '../../src/endpoint/index.js';
import type { CapturedRequest } from '../../src/http/index.js';
import type { EndpointRecord, MtlsCaRecord, MtlsCertRecord, Store } from '../../src/store/index.js';

function exchange(endpoint: EndpointRecord, peer?: X509Certificate | null): Exchange {
  const request = {
    method: 'GET',
    path: '/',
    ...(peer === null ? {} : { peerCertificate: () => peer }),
  } as unknown as CapturedRequest;
  return { endpoint: { record: endpoint, settings: endpoint.settings, plan: null }, request };
}

void test('an endpoint without mtls: the step passes at once and never reads the store', () => {
  const store = new Proxy({} as Store, {
    get() {
      throw new Error('the store must not be read');
    },
  });
  const step = mtlsStep({ store, now: Date.now }, () => false);
  const out = step(exchange({ name: 'shop', createdAt: 0, settings: {} }));
  assert.equal(out, undefined, 'synchronous: not even a promise');
});

void test('with mtls: no certificate is refused at once; the store is read once per endpoint record', async () => {
  const now = Date.now();
  const ca = await makeCa('shop', now);
  const issued = await issueClientCert(ca, 'shop', 'c1', now, now + 86_400_000);
  const caRecord: MtlsCaRecord = { endpoint: 'shop', certPem: ca.certPem, keyEnc: 'v1.x', createdAt: now };
  const certRecord: MtlsCertRecord = {
    id: 'c1',
    endpoint: 'shop',
    name: 'c1',
    serial: issued.serial,
    fingerprint: issued.fingerprint,
    certPem: issued.certPem,
    expiresAt: issued.notAfter,
    createdAt: now,
  };
  let reads = 0;
  const store = {
    async getMtlsCa() {
      reads++;
      return caRecord;
    },
    async listMtlsCerts() {
      return [certRecord];
    },
  } as unknown as Store;
  const step = mtlsStep({ store, now: () => now }, () => true);
  const record: EndpointRecord = { name: 'shop', createdAt: 0, settings: {} };

  const none = step(exchange(record, undefined));
  assert.ok(none && !(none instanceof Promise), 'refused without a store read');
  assert.equal(none.answer.status, 403);
  assert.equal(none.behavior, 'rejected');
  const plain = step(exchange(record, null));
  assert.ok(plain && !(plain instanceof Promise));
  assert.match(String(plain.answer.body), /HTTPS/);
  assert.equal(reads, 0);

  const peer = new X509Certificate(issued.certPem);
  for (let i = 0; i < 3; i++) assert.equal(await step(exchange(record, peer)), undefined);
  assert.equal(reads, 1, 'one read for three requests');
  // The endpoint cache hands out a new record after a change: read again.
  assert.equal(await step(exchange({ ...record }, peer)), undefined);
  assert.equal(reads, 2);
});
