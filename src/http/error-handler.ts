/**
 * The one error handler (STYLE 3): every error a route throws is written as the body of SPEC §4,
 * `{ "error": { "code", "message", "details" } }`. An AppError carries its code; Fastify's own errors
 * are mapped (a schema finding of a route outside the API's TypeBox scope → 400 with pointer details,
 * a body over the limit → 413); anything else is logged and answered 500 without a word about internals.
 */
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorBody, type ErrorDetail } from '../errors.js';
import { redactUrl } from '../logger.js';
import { received } from '../schema/index.js';
import { isStoreFull, isStoreUnavailable } from '../store/index.js';

/**
 * One Ajv finding as an error detail: a JSON pointer that names the missing or unexpected property
 * itself (Ajv points at its parent), and the received value, read from the validated request part.
 */
function ajvDetail(v: NonNullable<FastifyError['validation']>[number], part: unknown): ErrorDetail {
  const params = v.params;
  const extra = params['missingProperty'] ?? params['additionalProperty'];
  const path =
    (v.instancePath || '') +
    (typeof extra === 'string' ? '/' + extra.replace(/~/g, '~0').replace(/\//g, '~1') : '');
  const d: ErrorDetail = { path: path || '/', message: v.message ?? 'is not valid' };
  let value: unknown = part;
  for (const seg of path.split('/').slice(1)) {
    const key = seg.replace(/~1/g, '/').replace(/~0/g, '~');
    value =
      value !== null && typeof value === 'object' && Object.hasOwn(value, key)
        ? (value as Record<string, unknown>)[key]
        : undefined;
  }
  const r = received(value);
  if (r !== undefined) d.received = r;
  return d;
}

/**
 * Fastify's `frameworkErrors`: what its router refuses before any route or hook (a path parameter over
 * `maxParamLength`, a URL it cannot decode) is answered in our shape too, not Fastify's.
 */
export function frameworkErrors(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.code(414).send(errorBody('uri_too_long', 'A path segment is longer than 1000 characters.'));
    return;
  }
  void reply.code(400).send(errorBody('validation_error', 'The request URL is not valid.'));
}

/** Installs the error handler and the 404 handler on the root instance. */
export function installErrorHandlers(fastify: FastifyInstance, log: FastifyBaseLogger): void {
  fastify.setErrorHandler((err: FastifyError | AppError, request, reply) => {
    if (err instanceof AppError) {
      if (err.headers) void reply.headers(err.headers);
      return reply.code(err.status).send(err.toBody());
    }
    if (err.validation) {
      const part =
        err.validationContext === 'querystring' ? request.query : request[err.validationContext ?? 'body'];
      const details = err.validation.map((v) => ajvDetail(v, part));
      return reply.code(400).send(errorBody('validation_error', err.message, details));
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const limit = request.routeOptions.bodyLimit;
      return reply
        .code(413)
        .send(
          errorBody(
            'payload_too_large',
            `The request body is larger than this route's limit of ${limit} bytes.`,
          ),
        );
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.code(400).send(errorBody('validation_error', err.message));
    }
    if (isStoreUnavailable(err)) {
      // Another process holds the database's lock, the database is away, or its disk is full: not the
      // client's doing, and it may pass. A full disk is logged as an error: an operator must act.
      const full = isStoreFull(err);
      const where = { err, method: request.method, url: redactUrl(request.originalUrl) };
      if (full) log.error(where, 'store full: the database cannot grow');
      else log.warn(where, 'store unavailable');
      const message = full ? 'The database has no space left for this write; retry later.' : undefined;
      return reply.code(503).header('retry-after', '1').send(errorBody('store_unavailable', message));
    }
    log.error({ err, method: request.method, url: redactUrl(request.originalUrl) }, 'unhandled error');
    return reply.code(500).send(errorBody('internal_error'));
  });

  fastify.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .send(errorBody('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`));
  });
}
