/**
 * Commands on an endpoint's TLS client certificates (SPEC §11): issue one (it needs TLS, and at most
 * MAX_CERTIFICATES per endpoint), revoke one. Each is announced as `certificates`, so that the mTLS
 * step's trust (kept per cached record) is built afresh for the next request.
 */
import { AppError } from '../errors.js';
import { MAX_CERTIFICATES, MTLS_NEEDS_TLS, tlsConfigured, type CertificateAuthority } from '../mtls/index.js';
import { detail, validationError } from '../schema/index.js';
import type { EndpointRecord, MtlsCertRecord } from '../store/index.js';
import { changed, type AdminDeps, type ChangeVersions } from './changed.js';

export interface CertificateDeps extends Pick<AdminDeps, 'config' | 'store' | 'events' | 'fence'> {
  /** The deployment's CA, loaded on first use. */
  authority: () => Promise<Pick<CertificateAuthority, 'issue'>>;
}

export type IssuedCertificate = NonNullable<Awaited<ReturnType<CertificateAuthority['issue']>>>;

/**
 * Makes a client certificate named `name`, signed by the endpoint's CA: 400 without TLS (the server
 * would never see it), 409 when the endpoint holds MAX_CERTIFICATES. The private key is in the answer
 * only.
 */
export async function issueCertificate(
  deps: CertificateDeps,
  ep: EndpointRecord,
  name: string,
): Promise<IssuedCertificate> {
  // A validation_error always names where: here the server, not a field of the body.
  if (!tlsConfigured(deps.config)) throw validationError([detail('/', MTLS_NEEDS_TLS)], MTLS_NEEDS_TLS);
  // The certificate is stored by the change's transaction, which moves the endpoint's version.
  let written: ChangeVersions | undefined;
  const insert = async (record: MtlsCertRecord): Promise<boolean> => {
    const w = await deps.store.changeEndpoint(ep.name, (tx) => tx.insertMtlsCert(record, MAX_CERTIFICATES), {
      unchanged: (inserted) => !inserted,
    });
    written = w;
    return w.result;
  };
  const made = await (await deps.authority()).issue(ep.name, name, insert);
  if (!made)
    throw new AppError(
      'conflict',
      `Endpoint "${ep.name}" holds ${MAX_CERTIFICATES} client certificates, the most it may; delete one first.`,
    );
  await changed(deps, ep.name, 'certificates', written);
  return made;
}

/** Revokes the certificate `id` at once (404 when the endpoint has none of that id). */
export async function revokeCertificate(
  deps: Pick<AdminDeps, 'store' | 'events' | 'fence'>,
  ep: EndpointRecord,
  id: string,
): Promise<void> {
  const written = await deps.store.changeEndpoint(ep.name, (tx) => tx.deleteMtlsCert(ep.name, id), {
    unchanged: (deleted) => !deleted,
  });
  if (!written.result)
    throw new AppError('not_found', `Endpoint "${ep.name}" has no client certificate "${id}".`);
  await changed(deps, ep.name, 'certificates', written);
}
