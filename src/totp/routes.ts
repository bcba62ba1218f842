/**
 * The TOTP API (SPEC §3): `POST /2FA/TOTP/` registers a secret (JSON, or a QR image as multipart),
 * `GET /2FA/TOTP/:id` answers the current code. Every answer is CORS-open and carries the per-IP rate
 * limit headers; preflights get 204. Secrets are sealed before they reach the store and opened only
 * to compute a code.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TotpDeps } from './deps.js';
import { AppError } from '../errors.js';
import {
  clientIp,
  corsHeaders,
  preflightHeaders,
  rateLimitedError,
  rateLimitHeaders,
  type CorsPolicy,
} from '../http/index.js';
import { codeAt, type Code } from './codes.js';
import { parseImportUri, type ImportedAccount, type ParsedImport } from './import-uri.js';
import { parseQrMultipart, QrUpload } from './multipart.js';
import type { QrPool } from './qr-pool.js';
import type { SecretBox } from '../secrets/index.js';
import { parseId, parseQuery, parseRegistration } from './validate.js';

const BASE = '/2FA/TOTP';
/** Open to any origin; browser clients may read the limit headers too. */
const TOTP_CORS: CorsPolicy = {
  origins: '*',
  methods: ['GET', 'POST', 'OPTIONS'],
  defaultAllowHeaders: 'Content-Type',
  exposeHeaders: ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
  maxAge: 86400,
  allowHeader: true,
};
const CORS = corsHeaders(TOTP_CORS);

/** Registers the API routes in `app`, an encapsulated scope of their own (its body parsers stay here). */
export async function totpApi(
  app: FastifyInstance,
  ctx: TotpDeps,
  box: SecretBox,
  qr: QrPool,
): Promise<void> {
  // JSON (Fastify's parser, within the global body limit) and multipart; any other type is refused.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('multipart/form-data', parseQrMultipart);
  app.addContentTypeParser('*', (_request, _payload, done) =>
    done(
      new AppError(
        'validation_error',
        'Send JSON (Content-Type: application/json) or an image upload (multipart/form-data, field "qrcode").',
        { headers: { connection: 'close' } },
      ),
    ),
  );

  // Before the body is read, so that a client over its limit costs no parsing or image decoding.
  app.addHook('onRequest', async (request, reply) => {
    void reply.headers(CORS);
    // Preflights are not counted: a cross-origin page would otherwise spend half its budget on them.
    if (request.method === 'OPTIONS') return;
    const ip = clientIp(request.raw, request.headers, ctx.config.trustProxy);
    const decision = await ctx.limiter.hit('totp:' + ip, ctx.config.totpRateLimit, 60_000);
    const now = ctx.now();
    if (!decision.allowed)
      throw rateLimitedError(decision, now, `More than ${decision.limit} TOTP requests a minute from ${ip}.`);
    void reply.headers(rateLimitHeaders(decision, now));
  });

  const register = async (request: FastifyRequest): Promise<unknown> => {
    const at = parseQuery(request.query as Record<string, unknown>);
    let parsed: ParsedImport;
    const fromQr = request.body instanceof QrUpload;
    if (request.body instanceof QrUpload) {
      // In a worker thread, within QR_TIMEOUT (qr-pool.ts): the image is never searched on this thread.
      const text = await qr.read(request.body.data);
      if (text === undefined) throw new AppError('qr_unreadable');
      if (!/^otpauth(-migration)?:/i.test(text))
        throw new AppError('qr_unreadable', 'The QR code was read, but it holds no otpauth:// URI.');
      parsed = parseImportUri(text, '/qrcode');
    } else {
      parsed = parseRegistration(request.body);
    }
    const now = ctx.now();
    if (parsed.kind === 'single') {
      const { id, code } = await store(ctx, box, parsed.account, now, at);
      if (!fromQr) return { id, otp: code.otp, expiresAt: code.expiresAt };
      // The uploader cannot know what the image held: its issuer and account are given back, so that
      // a page labels the code by them rather than by the file's name.
      const { issuer, name } = parsed.account;
      return {
        id,
        otp: code.otp,
        expiresAt: code.expiresAt,
        ...(issuer ? { issuer } : {}),
        ...(name ? { name } : {}),
      };
    }
    const data = [];
    for (const account of parsed.accounts) {
      const { id, code } = await store(ctx, box, account, now, at);
      data.push({ id, otp: code.otp, expiresAt: code.expiresAt, issuer: account.issuer, name: account.name });
    }
    return { data };
  };

  const current = async (request: FastifyRequest<{ Params: { id: string } }>): Promise<unknown> => {
    const id = parseId(request.params.id);
    const at = parseQuery(request.query as Record<string, unknown>);
    const rec = await ctx.store.getTotp(id);
    if (!rec) throw new AppError('not_found', `No TOTP secret with id ${id} (never registered, or purged).`);
    let secret: Buffer;
    try {
      secret = box.open(rec.secretEnc, rec.id);
    } catch {
      // The key changed (SECRET_KEY set or altered, key file replaced): say so to the operator only.
      ctx.log.error(
        { totpId: id },
        'TOTP secret cannot be decrypted: SECRET_KEY or the key file has changed',
      );
      throw new AppError('internal_error');
    }
    const now = ctx.now();
    await ctx.store.touchTotp(id, now);
    const code = codeAt(
      { secret, algorithm: rec.algorithm, digits: rec.digits, period: rec.period },
      at ?? now,
    );
    return { id, otp: code.otp, expiresAt: code.expiresAt };
  };

  const preflight = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> =>
    reply.code(204).headers(preflightHeaders(TOTP_CORS, request.headers)).send();

  for (const url of [BASE, `${BASE}/`]) {
    app.post(url, register);
    app.options(url, preflight);
  }
  for (const url of [`${BASE}/:id`, `${BASE}/:id/`]) {
    app.get(url, current);
    app.options(url, preflight);
  }
  // Anything else under the API (another method, a deeper path) is a 404 that still carries CORS.
  app.options(`${BASE}/*`, preflight);
  app.route({
    method: app.supportedMethods.filter((m) => m !== 'OPTIONS' && m !== 'HEAD'),
    url: `${BASE}/*`,
    handler: async (request) => {
      throw new AppError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`);
    },
  });
}

async function store(
  ctx: TotpDeps,
  box: SecretBox,
  account: ImportedAccount,
  now: number,
  at: number | undefined,
): Promise<{ id: string; code: Code }> {
  const id = randomUUID();
  await ctx.store.insertTotp({
    id,
    issuer: account.issuer,
    algorithm: account.algorithm,
    digits: account.digits,
    period: account.period,
    secretEnc: box.seal(account.secret, id),
    createdAt: now,
    lastUsedAt: now,
  });
  return { id, code: codeAt(account, at ?? now) };
}
