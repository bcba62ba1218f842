/**
 * The operations routes at the root of the management host (SPEC §8):
 *   GET /livez   → 200 {"status":"ok"}: the process answers (no dependency is asked)
 *   GET /readyz  → 200 {"status":"ready"}; 503 {"status":"starting"|"draining"} before the app is
 *                  built and from SIGTERM on. A shared dependency being down never fails it: every
 *                  replica would leave the load balancer at once.
 *   GET /metrics → Prometheus text format, admin key (METRICS_PORT serves it without one, api/metrics-listener.ts)
 * Only the management host answers them: on an endpoint's host (`<name>.<BASE_DOMAIN>`, a custom
 * domain) or under `/e/<name>/`, these paths are the endpoint's, as every other path is.
 */
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from './deps.js';
import { AppError } from '../errors.js';
import { authenticate, requireAdmin } from './auth.js';
import { AuthFailures } from './auth-failures.js';

const NO_STORE = { 'cache-control': 'no-store' };

export type OpsDeps = Pick<ApiDeps, 'config' | 'limiter' | 'log' | 'now' | 'store' | 'readiness' | 'metrics'>;

export async function opsRoutes(app: FastifyInstance, ctx: OpsDeps): Promise<void> {
  app.get('/livez', async (_request, reply) => reply.headers(NO_STORE).send({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const state = ctx.readiness.state;
    return reply
      .code(state === 'ready' ? 200 : 503)
      .headers(NO_STORE)
      .send({ status: state });
  });

  // The admin key, with the API's throttling of failed attempts: /metrics is no way around it.
  const failures = new AuthFailures(ctx);
  app.get(
    '/metrics',
    {
      onRequest: async (request) => {
        await failures.check(request);
        try {
          await authenticate(ctx.store, request);
        } catch (err) {
          if (err instanceof AppError && err.status === 401)
            throw (await failures.failed(request, err.code)) ?? err;
          throw err;
        }
        requireAdmin(request);
      },
    },
    async (_request, reply) =>
      reply.headers({ ...NO_STORE, 'content-type': ctx.metrics.contentType }).send(await ctx.metrics.text()),
  );
}
