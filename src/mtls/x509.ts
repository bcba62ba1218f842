/**
 * Making the certificates of an endpoint's mTLS CA with @peculiar/x509 over Node's WebCrypto: the CA
 * itself (self-signed) and the client certificates it signs. Every key is ECDSA P-256 and every
 * signature ECDSA with SHA-256: small keys, fast to make (a certificate costs about a millisecond),
 * and accepted by OpenSSL, curl, browsers and every HTTP client that takes a PEM pair.
 *
 * @peculiar/x509 resolves its parts through tsyringe, which needs the Reflect metadata polyfill loaded
 * first: the side-effect import below comes before the library's.
 */
import 'reflect-metadata';
import { KeyObject, randomBytes, webcrypto, X509Certificate as NodeX509 } from 'node:crypto';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectKeyIdentifierExtension,
  X509Certificate,
  X509CertificateGenerator,
} from '@peculiar/x509';

// Node's WebCrypto is the provider, passed to every call (no global provider to set).
const crypto = webcrypto;
const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;

/** How long an endpoint's CA is valid; client certificates never outlive it. */
export const CA_VALIDITY_MS = 10 * 365 * 86_400_000;

/** A CA, as made: its certificate and its private key (PKCS#8 DER, to be sealed before storing). */
export interface MadeCa {
  certPem: string;
  keyDer: Buffer;
}

/** A client certificate, as issued: the key is shown once and never stored. */
export interface IssuedCert {
  certPem: string;
  keyPem: string;
  serial: string;
  fingerprint: string;
  notAfter: number;
}

function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return crypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
}

/** A positive 128-bit serial number, hex (RFC 5280 4.1.2.2: positive, at most 20 octets). */
function serialNumber(): string {
  const b = randomBytes(16);
  b[0] = (b[0]! & 0x7f) | 0x01;
  return b.toString('hex');
}

/** Certificates carry whole seconds: a time rounded down, so that `notBefore` is never in the future. */
function wholeSecond(ms: number): Date {
  return new Date(Math.floor(ms / 1000) * 1000);
}

/** The CA's name, its subject and its certificates' issuer (the same text gives the same DER). */
function caName(endpoint: string): string {
  return `CN=Mockingbird mTLS CA, OU=${endpoint}`;
}

/** Makes a self-signed CA for `endpoint`, valid from `now` for CA_VALIDITY_MS. */
export async function makeCa(endpoint: string, now: number): Promise<MadeCa> {
  const keys = await generateKeys();
  const cert = await X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serialNumber(),
      name: caName(endpoint),
      notBefore: wholeSecond(now),
      notAfter: wholeSecond(now + CA_VALIDITY_MS),
      keys,
      signingAlgorithm: SIGNING,
      extensions: [
        new BasicConstraintsExtension(true, 0, true),
        new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
        await SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  const keyDer = Buffer.from(await crypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { certPem: cert.toString('pem'), keyDer };
}

/**
 * Issues a client certificate signed by the CA (its certificate and its private key, PKCS#8 DER): subject
 * `CN=<id>, OU=<endpoint>`, for TLS client authentication only, valid from `now` until `notAfter`
 * (never past the CA's own end).
 */
export async function issueClientCert(
  ca: { certPem: string; keyDer: Buffer },
  endpoint: string,
  id: string,
  now: number,
  notAfter: number,
): Promise<IssuedCert> {
  const caCert = new X509Certificate(ca.certPem);
  const signingKey = await crypto.subtle.importKey('pkcs8', ca.keyDer, KEY_ALGORITHM, false, ['sign']);
  const keys = await generateKeys();
  const end = Math.min(notAfter, caCert.notAfter.getTime());
  const serial = serialNumber();
  const cert = await X509CertificateGenerator.create(
    {
      serialNumber: serial,
      subject: `CN=${id}, OU=${endpoint}`,
      issuer: caName(endpoint),
      notBefore: wholeSecond(now),
      notAfter: wholeSecond(end),
      publicKey: keys.publicKey,
      signingKey,
      signingAlgorithm: SIGNING,
      extensions: [
        new BasicConstraintsExtension(false, undefined, true),
        new KeyUsagesExtension(KeyUsageFlags.digitalSignature, true),
        new ExtendedKeyUsageExtension([ExtendedKeyUsage.clientAuth], false),
        await AuthorityKeyIdentifierExtension.create(caCert, false, crypto),
        await SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  const certPem = cert.toString('pem');
  const keyPem = KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString();
  const issued = new NodeX509(certPem);
  return {
    certPem,
    keyPem,
    serial: issued.serialNumber,
    fingerprint: issued.fingerprint256,
    notAfter: Date.parse(issued.validTo),
  };
}
