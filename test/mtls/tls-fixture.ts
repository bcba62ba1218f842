/**
 * TLS for the mTLS tests: a self-signed server certificate for 127.0.0.1 and localhost (made with the
 * same X.509 library the server uses), an app serving HTTPS on port 0, and requests over real TLS
 * sockets with or without a client certificate.
 */
import 'reflect-metadata';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request, Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyObject, webcrypto } from 'node:crypto';
import {
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  SubjectAlternativeNameExtension,
  X509CertificateGenerator,
} from '@peculiar/x509';

export interface ServerCert {
  certPem: string;
  keyPem: string;
  /** Files holding them, for TLS_CERT and TLS_KEY. */
  certFile: string;
  keyFile: string;
}

/** A self-signed server certificate for 127.0.0.1 and localhost, written to a temporary folder. */
export async function serverCertificate(): Promise<ServerCert> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const cert = await X509CertificateGenerator.createSelfSigned(
    {
      name: 'CN=localhost',
      keys,
      signingAlgorithm: alg,
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 86_400_000),
      extensions: [
        new BasicConstraintsExtension(false, undefined, true),
        new ExtendedKeyUsageExtension([ExtendedKeyUsage.serverAuth]),
        new SubjectAlternativeNameExtension([
          { type: 'dns', value: 'localhost' },
          { type: 'ip', value: '127.0.0.1' },
        ]),
      ],
    },
    webcrypto,
  );
  const certPem = cert.toString('pem');
  const keyPem = KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString();
  const dir = mkdtempSync(join(tmpdir(), 'mb-tls-'));
  const certFile = join(dir, 'server.crt');
  const keyFile = join(dir, 'server.key');
  writeFileSync(certFile, certPem);
  writeFileSync(keyFile, keyPem, { mode: 0o600 });
  return { certPem, keyPem, certFile, keyFile };
}

export interface TlsAnswer {
  status: number;
  contentType: string | undefined;
  body: string;
}

/**
 * GET `path` over HTTPS from 127.0.0.1:`port`, trusting the test server's certificate, presenting
 * `client` (cert and key PEM) when given. A fresh connection unless an `agent` is passed.
 */
export function httpsGet(
  port: number,
  server: ServerCert,
  path: string,
  client?: { cert: string; key: string },
  agent?: Agent,
): Promise<TlsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'GET',
        ca: server.certPem,
        ...(client ? { cert: client.cert, key: client.key } : {}),
        ...(agent ? { agent } : { agent: false }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: res.headers['content-type'],
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
