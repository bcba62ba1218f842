/**
 * The mTLS step of a user endpoint's pipeline (SPEC §11): with `mtls.enabled`, a request must come
 * over a TLS connection on which the client presented one of this endpoint's certificates, still
 * stored (a revoked one is deleted), within its validity dates, and signed by this endpoint's CA.
 * Otherwise 403 text/plain, recorded as `rejected`.
 *
 * What the check needs (the CA certificate, the fingerprints of the certificates still valid) is read
 * once per cached endpoint record: issuing or revoking a certificate is announced as a change of the
 * endpoint (src/admin/), which drops the record from the cache, so a revocation takes effect on the
 * next request, and a request costs no store read. Endpoints without the setting never reach any of
 * this.
 */
import { X509Certificate } from 'node:crypto';
import type { MtlsDeps } from './deps.js';
import {
  RecordMemo,
  type Exchange,
  type Outcome,
  type ResolvedEndpoint,
  type Step,
} from '../endpoint/index.js';
import { TEXT_TYPE } from '../http/index.js';
import type { Store } from '../store/index.js';

interface Trust {
  /** The endpoint's CA; undefined until its first certificate is made. */
  ca: X509Certificate | undefined;
  /** Fingerprints (SHA-256) of the certificates the endpoint still stores. */
  active: Set<string>;
  /** Fingerprints whose signature by the CA was checked (once per certificate, not per request). */
  verified: Set<string>;
}

const trusts = new RecordMemo<Trust>();

async function loadTrust(store: Store, endpoint: string): Promise<Trust> {
  const [ca, certs] = await Promise.all([store.getMtlsCa(endpoint), store.listMtlsCerts(endpoint)]);
  return {
    ca: ca && new X509Certificate(ca.certPem),
    active: new Set(certs.map((c) => c.fingerprint)),
    verified: new Set(),
  };
}

/** Why `peer` is not accepted for the endpoint of `trust` at `now`, or undefined when it is. */
function problemOf(trust: Trust, peer: X509Certificate, now: number): string | undefined {
  const fingerprint = peer.fingerprint256;
  if (!trust.ca || !trust.active.has(fingerprint))
    return "the certificate sent is not one of this endpoint's (unknown, revoked or made for another endpoint)";
  if (now < Date.parse(peer.validFrom) || now > Date.parse(peer.validTo))
    return 'the certificate sent has expired or is not valid yet';
  if (!trust.verified.has(fingerprint)) {
    // A fingerprint match means the very bytes this endpoint issued; the signature is checked anyway
    // (once), so that a row written into the store by other means is not trusted on its word.
    if (!peer.checkIssued(trust.ca) || !peer.verify(trust.ca.publicKey))
      return "the certificate sent is not signed by this endpoint's CA";
    trust.verified.add(fingerprint);
  }
  return undefined;
}

function refused(why: string): Outcome {
  return {
    behavior: 'rejected',
    answer: {
      status: 403,
      headers: { 'content-type': TEXT_TYPE },
      body: `This endpoint requires a valid client certificate (mTLS); ${why}.\n`,
    },
  };
}

/**
 * The step: passes when `enabled` says the endpoint does not require client certificates, or when
 * the request's connection presented a valid one; refuses (403) otherwise, plain HTTP included.
 */
export function mtlsStep<E extends ResolvedEndpoint>(
  ctx: Pick<MtlsDeps, 'store' | 'now'>,
  enabled: (x: Exchange<E>) => boolean,
): Step<E> {
  // Synchronous when the endpoint does not ask for certificates: no extra turn for everyone else.
  return (x) => {
    if (!enabled(x)) return undefined;
    const peer = x.request.peerCertificate?.();
    if (!peer)
      return refused(
        x.request.peerCertificate ? 'the request sent none' : 'it must be reached over HTTPS with one',
      );
    return trusts
      .get(x.endpoint.record, () => loadTrust(ctx.store, x.endpoint.record.name))
      .then((trust) => {
        const problem = problemOf(trust, peer, ctx.now());
        return problem === undefined ? undefined : refused(problem);
      });
  };
}
