/**
 * The one process, one port server: builds the store, the history writer and the Fastify instance,
 * and wires the capabilities into it. Which endpoint a request is for is decided by endpoint/
 * (dispatch.ts); every other host serves the bare-domain routes (dashboard, API, TOTP).
 */
import { readFileSync } from 'node:fs';
import { METHODS } from 'node:http';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { createLogger } from './logger.js';
import type { AppContext } from './context.js';
import { AppError, errorBody, type ErrorDetail } from './errors.js';
import {
  answerExpectContinue,
  clientErrorHandler,
  MemoryRateLimiter,
  type RateLimiter,
} from './http/index.js';
import { ECHO_ENDPOINT, EndpointCache, endpointRoutes, rewriteUrlFor } from './endpoint/index.js';
import { echoPipeline } from './echo/index.js';
import { mockPipeline } from './mock/index.js';
import { HistoryWriter, openStore, type Store } from './store/index.js';
import { MemoryEventBus, type EventBus } from './events/index.js';
import { totpRoutes } from './totp/index.js';
import { apiRoutes, ensureAdminKey, publishRequestEvents } from './api/index.js';
import { startBackgroundJobs } from './background.js';

export interface App {
  fastify: FastifyInstance;
  ctx: AppContext;
  /** The admin key generated at this start (first start only), to be printed once. */
  generatedAdminKey: string | undefined;
  /** Stops accepting, finishes in-flight requests, flushes the history, closes the store. */
  close(): Promise<void>;
}

export interface BuildOptions {
  store?: Store;
  limiter?: RateLimiter;
  events?: EventBus;
  now?: () => number;
}

/** The URL for the log line, with an `access_token` query value (EventSource auth) hidden. */
export function redactUrl(url: string): string {
  return url.includes('access_token=') ? url.replace(/([?&]access_token=)[^&]*/g, '$1[redacted]') : url;
}

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
  if (value !== undefined) d.received = JSON.stringify(value).slice(0, 200);
  return d;
}

export async function buildApp(config: Config, opts: BuildOptions = {}): Promise<App> {
  const { log, stream: logStream } = createLogger(config.logLevel);
  const https =
    config.tlsCert && config.tlsKey
      ? { cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) }
      : null;
  const fastify = Fastify({
    // Fastify's own request logging (a child logger per request) costs more than a third of the
    // echo's throughput; the one line per request is written by the onResponse hook below instead.
    logger: false,
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimit,
    rewriteUrl: rewriteUrlFor(config.baseDomain),
    routerOptions: { maxParamLength: 1000 },
    return503OnClosing: true,
    clientErrorHandler,
    ...(https ? { https } : {}),
  }) as unknown as FastifyInstance;

  const store = opts.store ?? (await openStore(config));
  const history = new HistoryWriter(store, log);
  const limiter = opts.limiter ?? new MemoryRateLimiter();
  const events = opts.events ?? new MemoryEventBus();
  const ctx: AppContext = {
    config,
    store,
    history,
    limiter,
    events,
    log,
    endpoints: new EndpointCache(store),
    now: opts.now ?? Date.now,
  };
  publishRequestEvents(ctx);

  const generatedAdminKey = await ensureAdminKey(store, config.apiKey);

  // One JSON line per request.
  fastify.addHook('onResponse', (request, reply, done) => {
    log.info(
      {
        method: request.method,
        host: request.headers.host,
        url: redactUrl(request.originalUrl),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request',
    );
    done();
  });

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
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return reply.code(413).send(errorBody('payload_too_large'));
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.code(400).send(errorBody('validation_error', err.message));
    }
    log.error({ err, method: request.method, url: redactUrl(request.originalUrl) }, 'unhandled error');
    return reply.code(500).send(errorBody('internal_error'));
  });

  fastify.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .send(errorBody('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`));
  });

  // Endpoints echo every method Node parses, WebDAV's included (CONNECT excepted: it is a tunnel).
  for (const m of METHODS) {
    if (m !== 'CONNECT' && !fastify.supportedMethods.includes(m)) fastify.addHttpMethod(m, { hasBody: true });
  }
  // `Expect: 100-continue` with a declared body over the limit: 413 at once.
  answerExpectContinue(fastify.server, config.bodyLimit);
  const routing = { builtIn: new Map([[ECHO_ENDPOINT, echoPipeline(ctx)]]), user: mockPipeline(ctx) };
  await fastify.register(async (scope) => endpointRoutes(scope, ctx, routing));
  await fastify.register(async (scope) => apiRoutes(scope, ctx), { prefix: '/api/v2' });
  await fastify.register(async (scope) => totpRoutes(scope, ctx));
  const jobs = startBackgroundJobs(ctx);

  let closed = false;
  return {
    fastify,
    ctx,
    generatedAdminKey,
    async close() {
      if (closed) return;
      closed = true;
      await fastify.close();
      await jobs.stop();
      await history.close();
      await limiter.close?.();
      await events.close();
      if (!opts.store) await store.close();
      logStream.flushSync();
    },
  };
}
