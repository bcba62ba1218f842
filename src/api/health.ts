/**
 * GET /health, relative to /api/v2 (admin key; SPEC §8): this instance's view of its dependencies,
 * the modes it fell back to and its history queue, built by cluster/'s HealthProbe on each call. Always
 * 200 when the caller may see it: `degraded` says whether something is wrong, and `/readyz` (not this
 * route) is what a load balancer asks.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ApiDeps } from './deps.js';
import { StringEnum } from '../schema/index.js';
import { requireAdmin } from './auth.js';
import { NoQuery } from './schemas/common.js';

const Ms = Type.Number({ description: 'round trip of the ping, ms' });
const Detail = Type.String({ description: 'why it is down, or which fallback is in use' });

export const HealthAnswer = Type.Object(
  {
    degraded: Type.Boolean({
      description: 'true when the database or Redis does not answer, or a part reported down or degraded',
    }),
    instance: Type.Object({
      state: StringEnum(['starting', 'ready', 'draining'], { description: 'what /readyz answers on' }),
      uptimeSeconds: Type.Integer(),
    }),
    database: Type.Object({
      dialect: StringEnum(['sqlite', 'postgres']),
      state: StringEnum(['up', 'down']),
      latencyMs: Type.Optional(Ms),
      detail: Type.Optional(Detail),
    }),
    redis: Type.Object({
      state: StringEnum(['up', 'down', 'off'], { description: 'off: REDIS_URL is not set' }),
      latencyMs: Type.Optional(Ms),
      detail: Type.Optional(Detail),
    }),
    reports: Type.Record(
      Type.String(),
      Type.Object({
        state: StringEnum(['up', 'down', 'degraded']),
        detail: Type.Optional(Detail),
        since: Type.String({ description: 'when this state began, ISO 8601 UTC' }),
      }),
      {
        description:
          'what parts of this instance reported, by name: the Redis link (`redis`), shared rate limits, ' +
          'the event stream, tunnels, configuration versions',
      },
    ),
    history: Type.Object({
      queued: Type.Integer({ description: 'entries waiting to be written' }),
      queuedBytes: Type.Integer(),
      written: Type.Integer({ description: 'entries written since start' }),
      dropped: Type.Integer({
        description: 'entries dropped since start (queue full, store unavailable, a value the store refused)',
      }),
    }),
  },
  { title: 'Health' },
);

export async function healthApi(app: FastifyInstance, ctx: Pick<ApiDeps, 'health'>): Promise<void> {
  app.get(
    '/health',
    {
      schema: {
        tags: ['Operations'],
        summary: "This instance's dependencies, fallbacks and history queue (admin key)",
        description:
          'Pings the database (1 s at most) and Redis (500 ms at most) on each call. Always 200 for an ' +
          'admin key; `degraded` says whether something is wrong. Load balancers ask `GET /readyz`.',
        querystring: NoQuery,
        response: { 200: HealthAnswer },
      },
    },
    async (request, reply) => {
      requireAdmin(request);
      return reply.header('cache-control', 'no-store').send(await ctx.health.report());
    },
  );
}
