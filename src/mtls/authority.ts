/**
 * Each endpoint's own certificate authority (SPEC §11): made on the first certificate request and
 * stored with its private key sealed by the SecretBox (as TOTP secrets are), and the client
 * certificates it issues. The store keeps each certificate without its key: the key is handed to the
 * caller once, in the answer that made it.
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import type { SecretBox } from '../secrets/index.js';
import type { MtlsCertRecord, Store } from '../store/index.js';
import { issueClientCert, makeCa } from './x509.js';

/** Most certificates an endpoint holds; a revoked (deleted) one no longer counts. */
export const MAX_CERTIFICATES = 100;

/** How long a client certificate is valid: one year. */
export const CERT_VALIDITY_MS = 365 * 86_400_000;

/** Why client certificates are refused on a server without TLS. */
export const MTLS_NEEDS_TLS =
  'Client certificates need TLS: start Mockingbird with TLS_CERT and TLS_KEY (HTTPS) to use them.';

/** Whether the server terminates TLS itself (it can then see clients' certificates). */
export function tlsConfigured(config: Pick<Config, 'tlsCert' | 'tlsKey'>): boolean {
  return config.tlsCert !== undefined && config.tlsKey !== undefined;
}

/** The additional authenticated data of an endpoint's sealed CA key: it opens on no other row. */
function caKeyId(endpoint: string): string {
  return `mtls-ca:${endpoint}`;
}

export class CertificateAuthority {
  constructor(
    private readonly store: Store,
    private readonly box: SecretBox,
    private readonly now: () => number,
  ) {}

  /** The endpoint's CA with its key opened, made (and stored) first if it has none. */
  private async ca(endpoint: string): Promise<{ certPem: string; keyDer: Buffer }> {
    let stored = await this.store.getMtlsCa(endpoint);
    if (!stored) {
      const now = this.now();
      const made = await makeCa(endpoint, now);
      stored = await this.store.putMtlsCaIfAbsent({
        endpoint,
        certPem: made.certPem,
        keyEnc: this.box.seal(made.keyDer, caKeyId(endpoint)),
        createdAt: now,
      });
    }
    return { certPem: stored.certPem, keyDer: this.box.open(stored.keyEnc, caKeyId(endpoint)) };
  }

  /**
   * Issues a client certificate named `name` for `endpoint`, valid for CERT_VALIDITY_MS. Undefined
   * when the endpoint already holds MAX_CERTIFICATES. `insert` stores it (false: the endpoint is
   * full); by default, straight into the store.
   */
  async issue(
    endpoint: string,
    name: string,
    insert: (record: MtlsCertRecord) => Promise<boolean> = (r) =>
      this.store.insertMtlsCert(r, MAX_CERTIFICATES),
  ): Promise<{ record: MtlsCertRecord; keyPem: string } | undefined> {
    const ca = await this.ca(endpoint);
    const now = this.now();
    const id = randomUUID();
    const issued = await issueClientCert(ca, endpoint, id, now, now + CERT_VALIDITY_MS);
    const record: MtlsCertRecord = {
      id,
      endpoint,
      name,
      serial: issued.serial,
      fingerprint: issued.fingerprint,
      certPem: issued.certPem,
      expiresAt: issued.notAfter,
      createdAt: now,
    };
    if (!(await insert(record))) return undefined;
    return { record, keyPem: issued.keyPem };
  }
}
