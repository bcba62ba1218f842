/**
 * TLS client certificates of an endpoint (SPEC §11), relative to /api/v2:
 *   POST   /endpoints/:ep/mtls/certificates           make one (201; its private key shown only here)
 *   GET    /endpoints/:ep/mtls/certificates           list them, without keys
 *   DELETE /endpoints/:ep/mtls/certificates/:certId   revoke one, at once
 * Making one needs TLS (TLS_CERT/TLS_KEY): without it the server never sees a client certificate, so
 * POST is refused with 400; listing and revoking always work. A scoped key reaches its own endpoint
 * only (403 elsewhere); the built-in `echo` endpoint has no certificates (403).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ApiDeps } from './deps.js';
import { issueCertificate, revokeCertificate } from '../admin/index.js';
import { certificateAuthority, MAX_CERTIFICATES, type CertificateAuthority } from '../mtls/index.js';
import type { MtlsCertRecord } from '../store/index.js';
import { DataOf, Deleted, EndpointParams, NoQuery } from './schemas/common.js';

const TAGS = ['Client certificates (mTLS)'];

const Certificate = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    cert: Type.String({ description: 'the certificate, PEM' }),
    expiry: Type.String({ description: 'end of validity, ISO 8601 UTC' }),
    createdAt: Type.String({ description: 'ISO 8601 UTC' }),
    fingerprint: Type.String({ description: "SHA-256 of the certificate's DER bytes, hex with colons" }),
  },
  { title: 'ClientCertificate' },
);

const NewCertificate = Type.Object(
  {
    ...Certificate.properties,
    key: Type.String({ description: 'the private key (PKCS#8, PEM): shown only in this answer' }),
  },
  { title: 'NewClientCertificate' },
);

const CertificateInput = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, examples: ['ci-runner'] }) },
  { additionalProperties: false },
);

const CertParams = Type.Object({
  ...EndpointParams.properties,
  certId: Type.String({ minLength: 1, maxLength: 100, description: 'certificate id' }),
});

function toJson(c: MtlsCertRecord) {
  return {
    id: c.id,
    name: c.name,
    cert: c.certPem,
    expiry: new Date(c.expiresAt).toISOString(),
    createdAt: new Date(c.createdAt).toISOString(),
    fingerprint: c.fingerprint,
  };
}

/** The certificate routes, relative to /endpoints/:ep (endpoint-scope.ts). */
export async function mtlsApi(
  app: FastifyInstance,
  ctx: Pick<ApiDeps, 'config' | 'events' | 'fence' | 'now' | 'store'>,
): Promise<void> {
  // The secret key is loaded (or the key file made) on the first certificate, not at every start.
  let authority: Promise<CertificateAuthority> | undefined;
  const ca = (): Promise<CertificateAuthority> => {
    if (!authority) {
      authority = certificateAuthority(ctx);
      authority.catch(() => (authority = undefined)); // a failed load is retried by the next request
    }
    return authority;
  };

  app.post<{ Params: { ep: string }; Body: { name: string } }>(
    '/mtls/certificates',
    {
      config: { endpoint: { writable: true } },
      schema: {
        tags: TAGS,
        summary: "Make a client certificate signed by the endpoint's CA",
        description:
          'The CA is made on first use. The answer holds the certificate and its private key (PEM); ' +
          `the key is not kept and is shown only here. Valid for one year. At most ${MAX_CERTIFICATES} ` +
          'per endpoint (409 past it). Needs TLS_CERT/TLS_KEY (400 without).',
        params: EndpointParams,
        querystring: NoQuery,
        body: CertificateInput,
        response: { 201: NewCertificate },
      },
    },
    async (request, reply) => {
      const made = await issueCertificate(
        { config: ctx.config, store: ctx.store, events: ctx.events, fence: ctx.fence, authority: ca },
        request.endpoint,
        request.body.name,
      );
      return reply.code(201).send({ ...toJson(made.record), key: made.keyPem });
    },
  );

  app.get<{ Params: { ep: string } }>(
    '/mtls/certificates',
    {
      schema: {
        tags: TAGS,
        summary: "The endpoint's client certificates, oldest first, without keys",
        params: EndpointParams,
        querystring: NoQuery,
        response: { 200: DataOf(Type.Array(Certificate)) },
      },
    },
    async (request) => ({ data: (await ctx.store.listMtlsCerts(request.endpoint.name)).map(toJson) }),
  );

  app.delete<{ Params: { ep: string; certId: string } }>(
    '/mtls/certificates/:certId',
    {
      schema: {
        tags: TAGS,
        summary: 'Revoke a client certificate',
        description: 'Requests with it are refused from the next one on (403). 404 if unknown.',
        params: CertParams,
        querystring: NoQuery,
        response: { 200: Deleted },
      },
    },
    async (request) => {
      const { certId } = request.params;
      await revokeCertificate(ctx, request.endpoint, certId);
      return { id: certId, deleted: true as const };
    },
  );
}
