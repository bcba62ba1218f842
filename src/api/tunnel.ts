/**
 * The tunnel route (SPEC §7): `GET /endpoints/:ep/tunnel`, a WebSocket that `mockingbird tunnel`
 * holds open. The handshake is completed only after the API's onRequest hook has authenticated the key
 * (failed keys counted like any other) and this route has checked that the key may act on the
 * endpoint, that the endpoint and its plan allow a tunnel, that the `Origin` is not a foreign web page,
 * and that the endpoint has room for one more client. Each refusal is the usual JSON error, written on
 * the upgrade's socket, which then closes. The connection itself belongs to the tunnel hub.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ApiDeps } from './deps.js';
import { AppError } from '../errors.js';
import { upgradeOf, clientIp } from '../http/index.js';
import { isBuiltIn } from '../endpoint/index.js';
import { endpointResolver } from '../mock/index.js';
import { tunnelOriginProblem } from '../tunnel/index.js';
import { errorResponses } from './history-schemas.js';
import { EndpointParams, ErrorBody, NoQuery } from './schemas/common.js';

/** The tunnel route (TUNNEL_ROUTE), relative to /endpoints/:ep (endpoint-scope.ts). */
export async function tunnelApi(
  app: FastifyInstance,
  ctx: Pick<ApiDeps, 'config' | 'tunnels'>,
): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    '/tunnel',
    {
      schema: {
        tags: ['Tunnel'],
        summary: 'Connect a local tunnel (WebSocket)',
        description:
          "A WebSocket upgrade that `mockingbird tunnel` holds open: the endpoint's requests that no rule " +
          'answers come through it while the `localTunnel` setting is on. The wire protocol is described in ' +
          'docs/fallback.md. A plain GET is 426; a browser page of another origin is 403; one client more ' +
          'than TUNNEL_MAX_CLIENTS is 409.',
        params: EndpointParams,
        querystring: NoQuery,
        response: { ...errorResponses, 409: ErrorBody, 426: ErrorBody },
      },
    },
    async (request, reply) => {
      const endpoint = request.endpoint;
      const upgrade = upgradeOf(request.raw);
      if (!upgrade || (request.headers.upgrade ?? '').toLowerCase() !== 'websocket')
        throw new AppError(
          'upgrade_required',
          'This route is a WebSocket: connect with `mockingbird tunnel`.',
          {
            headers: { upgrade: 'websocket' },
          },
        );
      const originProblem = tunnelOriginProblem(request.headers);
      if (originProblem) throw new AppError('forbidden', originProblem);
      if (isBuiltIn(endpoint))
        throw new AppError(
          'forbidden',
          `The built-in "${endpoint.name}" endpoint always echoes; it has no tunnel.`,
        );
      // Resolved as the request path resolves it: the typed settings and the plan (once per connection).
      const { settings, plan } = endpointResolver(ctx.config)(endpoint);
      if (!plan.tunnel)
        throw new AppError('plan_limit', `The plan "${plan.name}" does not include the local tunnel.`);
      if (!ctx.tunnels.hasRoom(endpoint.name))
        throw new AppError(
          'conflict',
          `Endpoint "${endpoint.name}" already has ${ctx.tunnels.clients(endpoint.name)} tunnel clients, the most it may.`,
        );
      reply.hijack();
      upgrade.take();
      ctx.tunnels.accept(request.raw, upgrade.socket, upgrade.head, {
        endpoint: endpoint.name,
        ip: clientIp(request.raw, request.headers, ctx.config.trustProxy),
        localTunnel: settings.localTunnel,
      });
    },
  );
}
