/**
 * The one error handler (STYLE 3): every error a route throws is written as the body of SPEC §4,
 * `{ "error": { "code", "message", "details" } }`. An AppError carries its code; Fastify's own errors
 * are mapped (a schema finding of a route outside the API's TypeBox scope → 400 with pointer details,
 * a body over the limit → 413); anything else is logged and answered 500 without a word about internals.
 */
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERRORS, errorBody, type ErrorDetail } from '../errors.js';
import { redactUrl } from '../logger.js';
import { received } from '../schema/index.js';
import { errorAnswer, headerMap, JSON_TYPE, sendAnswer, type Answer } from './answer.js';
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

/**
 * The answer to a failure of a route or of the endpoint plane: an AppError's own, a client error
 * (4xx) as 400, an unavailable store as 503 with Retry-After, anything else logged and 500.
 */
export function failureAnswer(err: unknown, log: FastifyBaseLogger, method: string, url: string): Answer {
  if (err instanceof AppError) {
    const headers = Object.assign(headerMap(), err.headers, { 'content-type': JSON_TYPE });
    return { status: err.status, headers, body: JSON.stringify(err.toBody()) };
  }
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return errorAnswer(400, 'validation_error', (err as Error).message);
  if (isStoreUnavailable(err)) {
    // Another process holds the database's lock, the database is away, or its disk is full: not the
    // client's doing, and it may pass. A full disk is logged as an error: an operator must act.
    const full = isStoreFull(err);
    const where = { err, method, url: redactUrl(url) };
    if (full) log.error(where, 'store full: the database cannot grow');
    else log.warn(where, 'store unavailable');
    const body = errorBody(
      'store_unavailable',
      full ? 'The database has no space left for this write; retry later.' : undefined,
    );
    const headers = Object.assign(headerMap(), { 'retry-after': '1', 'content-type': JSON_TYPE });
    return { status: 503, headers, body: JSON.stringify(body) };
  }
  log.error({ err, method, url: redactUrl(url) }, 'unhandled error');
  return errorAnswer(500, 'internal_error', ERRORS.internal_error.message);
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
    const a = failureAnswer(err, log, request.method, request.originalUrl);
    return sendAnswer(reply, a);
  });

  fastify.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .send(errorBody('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`));
  });
}
