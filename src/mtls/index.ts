/**
 * Public surface of TLS client certificates (mTLS, SPEC §11): each endpoint's CA and the certificates
 * it issues (the API's certificate routes use it), and the pipeline step that requires them.
 */
import type { MtlsDeps } from './deps.js';
import { SecretBox } from '../secrets/index.js';
import { CertificateAuthority } from './authority.js';

export { mtlsStep } from './check.js';
export type { MtlsDeps } from './deps.js';
export {
  CERT_VALIDITY_MS,
  CertificateAuthority,
  MAX_CERTIFICATES,
  MTLS_NEEDS_TLS,
  tlsConfigured,
} from './authority.js';

/** The CA of every endpoint, its keys sealed with the deployment's secret key (SECRET_KEY or the key file). */
export async function certificateAuthority(ctx: MtlsDeps): Promise<CertificateAuthority> {
  return new CertificateAuthority(ctx.store, await SecretBox.fromConfig(ctx.config), ctx.now);
}
