/**
 * TLS client certificates' rows (SPEC §11): one CA per endpoint (`mtls_cas`, its private key sealed
 * by the caller) and the client certificates it issued (`mtls_certs`). The store knows nothing of
 * X.509: it keeps the PEM text and what the API lists. The cap on an endpoint's certificates is exact:
 * on PostgreSQL an insertion locks the endpoint's CA row (which exists before any certificate) first.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { MtlsCaRecord, MtlsCertRecord } from './types.js';

type CertRow = Database['mtls_certs'];

function certOf(r: CertRow): MtlsCertRecord {
  return {
    id: r.id,
    endpoint: r.endpoint,
    name: r.name,
    serial: r.serial,
    fingerprint: r.fingerprint,
    certPem: r.cert_pem,
    expiresAt: Number(r.expires_at),
    createdAt: Number(r.created_at),
  };
}

export class MtlsTable {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: 'sqlite' | 'postgres',
  ) {}

  async getCa(endpoint: string): Promise<MtlsCaRecord | undefined> {
    const r = await this.db
      .selectFrom('mtls_cas')
      .selectAll()
      .where('endpoint', '=', endpoint)
      .executeTakeFirst();
    return (
      r && { endpoint: r.endpoint, certPem: r.cert_pem, keyEnc: r.key_enc, createdAt: Number(r.created_at) }
    );
  }

  /** Two instances making an endpoint's first CA at once agree on the one inserted first. */
  async putCaIfAbsent(ca: MtlsCaRecord): Promise<MtlsCaRecord> {
    await this.db
      .insertInto('mtls_cas')
      .values({ endpoint: ca.endpoint, cert_pem: ca.certPem, key_enc: ca.keyEnc, created_at: ca.createdAt })
      .onConflict((oc) => oc.column('endpoint').doNothing())
      .execute();
    const stored = await this.getCa(ca.endpoint);
    if (!stored) throw new Error(`The mTLS CA of "${ca.endpoint}" was not stored.`);
    return stored;
  }

  async list(endpoint: string): Promise<MtlsCertRecord[]> {
    const rows = await this.db
      .selectFrom('mtls_certs')
      .selectAll()
      .where('endpoint', '=', endpoint)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(certOf);
  }

  async insert(c: MtlsCertRecord, max: number): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      // SQLite runs one transaction at a time; PostgreSQL serialises an endpoint's insertions here.
      if (this.dialect === 'postgres')
        await tx
          .selectFrom('mtls_cas')
          .select('endpoint')
          .where('endpoint', '=', c.endpoint)
          .forUpdate()
          .execute();
      const r = await tx
        .selectFrom('mtls_certs')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('endpoint', '=', c.endpoint)
        .executeTakeFirstOrThrow();
      if (Number(r.n) >= max) return false;
      await tx
        .insertInto('mtls_certs')
        .values({
          id: c.id,
          endpoint: c.endpoint,
          name: c.name,
          serial: c.serial,
          fingerprint: c.fingerprint,
          cert_pem: c.certPem,
          expires_at: c.expiresAt,
          created_at: c.createdAt,
        })
        .execute();
      return true;
    });
  }

  async delete(endpoint: string, id: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('mtls_certs')
      .where('endpoint', '=', endpoint)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Deletes an endpoint's CA and certificates, inside the caller's transaction. */
  static async deleteEndpoint(tx: Kysely<Database>, endpoint: string): Promise<void> {
    await tx.deleteFrom('mtls_certs').where('endpoint', '=', endpoint).execute();
    await tx.deleteFrom('mtls_cas').where('endpoint', '=', endpoint).execute();
  }
}
