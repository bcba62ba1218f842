/**
 * The one process, one port server: builds the store, the history writer, the endpoint plane and the
 * Fastify instance, and wires the capabilities into them. One Node listener takes every request:
 * one that names an endpoint (endpoint/dispatch.ts) goes to the endpoint plane's door (serve/), every
 * other to Fastify, which serves the management plane (dashboard, API, TOTP, docs) alone.
 */
import { randomBytes } from 'node:crypto';
import { METHODS, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import Fastify, { type FastifyInstance } from 'fastify';
import { inject, type InjectOptions, type Response as InjectResponse } from 'light-my-request';
import { ConfigError, type Config } from './config.js';
import { readRegularFile } from './regular-file.js';
import { createLogger, logRequests, requestLog } from './logger.js';
import {
  answerExpectContinue,
  capConnectionsPerIp,
  createNodeServer,
  serverTimeoutOptions,
  refuseConnect,
  routeUpgrades,
  clientErrorHandler,
  frameworkErrors,
  installErrorHandlers,
  installJsonBodyParser,
  MemoryRateLimiter,
  type RateLimiter,
} from './http/index.js';
import {
  CustomDomains,
  ECHO_ENDPOINT,
  ENDPOINT_CACHE_MAX,
  EndpointCache,
  SANDBOX_HEADERS,
  endpointLifecycle,
  endpointNamer,
  sharedClaims,
  targetFinder,
  type EndpointRouting,
  type LifecycleDeps,
} from './endpoint/index.js';
import { endpointPlane, grpcDoor, isGrpcWebRequest, type GrpcDoor, type Plane } from './serve/index.js';
import { acceptH2c, acceptH2OverTls, type StreamHandler } from './grpc/index.js';
import { echoPipeline, type EchoDeps } from './echo/index.js';
import {
  CrudListBudget,
  endpointResolver,
  grpcService,
  mockPipeline,
  type Endpoint,
  type MockDeps,
} from './mock/index.js';
import { appendRecordedRule } from './admin/index.js';
import { openStore, sqliteFile, watchDataFile, type Store } from './store/index.js';
import { HistoryWriter, publishRequestEvents } from './history/index.js';
import { MemoryEventBus, type EventBus } from './events/index.js';
import { totpRoutes, type TotpDeps } from './totp/index.js';
import { dashboardRoutes } from './dashboard/index.js';
import {
  apiRoutes,
  ensureAdminKey,
  historyRecord,
  listenMetrics,
  opsRoutes,
  SseHub,
  type ApiDeps,
  type MetricsListener,
} from './api/index.js';
import type { ConfigFileDeps } from './config-file/index.js';
import { startBackgroundJobs, type BackgroundDeps } from './background.js';
import {
  defaultInstanceUrl,
  HOP_SECRET_META,
  isHop,
  isTunnelUpgrade,
  TunnelCluster,
  TunnelHub,
} from './tunnel/index.js';
import { CalloutQueue, OutboundClient } from './outbound/index.js';
import {
  DependencyStatus,
  HealthProbe,
  Readiness,
  LeasedRateLimiter,
  RedisEventBus,
  RedisLink,
  SharedRateLimiter,
  SharedWindows,
  VersionFence,
} from './cluster/index.js';
import { createMetrics, type Metrics } from './metrics/index.js';

/**
 * The services, built once at start: the one object that satisfies the dependencies each capability
 * declares beside itself (TypeScript checks it against every one of them here).
 */
export interface AppContext
  extends ApiDeps, MockDeps, LifecycleDeps, EchoDeps, TotpDeps, ConfigFileDeps, BackgroundDeps {
  events: EventBus;
  /** The endpoints the request path reads; it drops an endpoint when a change of it is announced. */
  endpoints: EndpointCache<Endpoint>;
  /**
   * Custom domains claimed by endpoints, read by the dispatch (one map lookup per request; with
   * REDIS_URL, checked against the shared domains' version first for hosts that could be claimed).
   */
  domains: CustomDomains;
  /** Connected local-tunnel clients, by endpoint. */
  tunnels: TunnelHub;
  /** The link to REDIS_URL that instances coordinate through; undefined for a single instance. */
  redis: RedisLink | undefined;
  /** The shared configuration versions (REDIS_URL); undefined for a single instance. */
  fence: VersionFence | undefined;
  /** The shared dependencies' states and the fallbacks in use, for /api/v2/health and /metrics. */
  status: DependencyStatus;
  /** This instance's Prometheus metrics (GET /metrics). */
  metrics: Metrics;
  /** Whether this instance takes traffic (GET /readyz): ready once built, draining from close() on. */
  readiness: Readiness;
}

export interface App {
  fastify: FastifyInstance;
  ctx: AppContext;
  /** The admin key generated at this start (first start only), to be printed once. */
  generatedAdminKey: string | undefined;
  /** The endpoint plane's door (serve/), which every endpoint request goes through. */
  plane: Plane;
  /**
   * A request injected into the one listener, in-process (light-my-request): the door production's
   * requests go through, endpoint and management plane alike.
   */
  inject(opts: InjectOptions | string): Promise<InjectResponse>;
  /**
   * Starts the metrics' own listener when METRICS_PORT is set (closed by close()); resolves with its
   * port, or undefined when none is configured. Rejects when it cannot listen.
   */
  listenMetrics(): Promise<number | undefined>;
  /**
   * Turns readiness to draining and serves on for DRAIN_DELAY, then stops accepting, finishes in-flight
   * requests, flushes the history, closes the store. Resolves
   * with how many answered requests' history could not be written (logged as lost).
   */
  close(): Promise<{ historyLost: number }>;
}

export interface BuildOptions {
  store?: Store;
  limiter?: RateLimiter;
  events?: EventBus;
  now?: () => number;
  /** How often the embedded database's file is checked for deletion (5 s). */
  dataFileCheckMs?: number;
  /** The built dashboard's folder (default: dist/web). */
  dashboardDir?: string;
}

/** A file a setting names, within CONFIG_FILE_LIMIT; a refusal is a ConfigError naming the setting. */
function readConfigured(setting: string, path: string, limit: number): Buffer {
  try {
    return readRegularFile(path, limit);
  } catch (err) {
    throw new ConfigError(`${setting} cannot be read: ${(err as Error).message}`);
  }
}

export async function buildApp(config: Config, opts: BuildOptions = {}): Promise<App> {
  const { log, stream: logStream } = createLogger(config.logLevel, config.logFormat);
  const timeouts = serverTimeoutOptions(config);
  const https =
    config.tlsCert && config.tlsKey
      ? {
          cert: readConfigured('TLS_CERT', config.tlsCert, config.configFileLimit),
          key: readConfigured('TLS_KEY', config.tlsKey, config.configFileLimit),
          // Clients are asked for a certificate and let in without one: endpoints with `mtls.enabled`
          // check it per request against their own CA (mtls/check.ts); everything else ignores it.
          requestCert: true,
          rejectUnauthorized: false,
          ...timeouts,
        }
      : null;
  const domains = new CustomDomains();
  const targetOf = targetFinder(config.baseDomain, domains);
  // Built once the endpoint lifecycle is; no request arrives before the server listens.
  let plane: Plane | undefined = undefined;
  // Tunnels across instances, with REDIS_URL only: built below, before the server listens.
  let tunnelHops: TunnelCluster | undefined = undefined;
  /** With REDIS_URL: brings the custom domains up to the shared version before dispatching. */
  let claimsChecked: ((req: IncomingMessage) => Promise<void> | undefined) | undefined;
  // Built with the plane: gRPC-Web over HTTP/1.1 is a call, not a request (SPEC §13).
  let calls: GrpcDoor | undefined = undefined;
  const dispatch = (req: IncomingMessage, res: ServerResponse): void => {
    const target = targetOf(req);
    if (isGrpcWebRequest(req)) calls!.web(req, res, target);
    else if (target) plane!.handle(req, res, target);
    else fastify.routing(req, res);
  };
  /**
   * The one listener: a hop from another instance to the tunnels (REDIS_URL only), an endpoint request to
   * the plane's door, every other to Fastify's routing.
   */
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    if (tunnelHops !== undefined && isHop(req)) return tunnelHops.handle(req, res);
    const checked = claimsChecked?.(req);
    if (checked) void checked.then(() => dispatch(req, res));
    else dispatch(req, res);
  };
  const fastify = Fastify({
    // Fastify's own request logging (a child logger per request) costs more than a third of the
    // echo's throughput; the one line per request is written by the onResponse hook below instead.
    logger: false,
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimit,
    routerOptions: { maxParamLength: 1000 },
    return503OnClosing: true,
    requestTimeout: timeouts.requestTimeout,
    keepAliveTimeout: timeouts.keepAliveTimeout,
    http: timeouts,
    clientErrorHandler,
    frameworkErrors,
    ...(https ? { https } : {}),
    serverFactory: () => createNodeServer(listener, timeouts, https),
  }) as unknown as FastifyInstance;

  const metrics = createMetrics();
  // SQLite serves one instance, which always leads; on PostgreSQL the store says when this one does.
  metrics.jobsLeader.set(config.databaseUrl ? 0 : 1);
  const store =
    opts.store ??
    (await openStore({
      ...config,
      onLeaderChange: (leads) => {
        metrics.jobsLeader.set(leads ? 1 : 0);
        if (leads) log.info('leading the instances on this database: this one runs the background jobs');
        else log.warn('no longer leading: another instance runs the background jobs');
      },
    }));
  // The version first: a claim made while the map is read is read again.
  const domainsVersion = config.redisUrl ? await store.getDomainsVersion() : 0;
  await domains.load(store);
  const history = new HistoryWriter(store, log, {
    maxQueued: config.historyQueueEntries,
    maxQueuedBytes: config.historyQueueBytes,
    perEndpoint: { maxEntries: config.historyMaxEntries, maxBytes: config.historyMaxBytes },
  });
  const status = new DependencyStatus();
  const redis = config.redisUrl
    ? new RedisLink(config.redisUrl, {
        onChange: (up, reason) => {
          status.report('redis', up ? 'up' : 'down', reason);
          if (up) log.info('Redis reachable: coordinating with the other instances');
          else log.warn({ reason }, 'Redis unreachable: this instance works alone until it is back');
        },
      })
    : undefined;
  const fence = redis && new VersionFence(redis, store, status, { log });
  fence?.start();
  if (fence) claimsChecked = sharedClaims(domains, fence, store, config.baseDomain, domainsVersion);
  // Rate limits and quotas: counted across instances in Redis when there is one (the echo's per-IP
  // limit in leases, without a round trip per request), else in this instance's memory.
  const windows = redis && !opts.limiter ? new SharedWindows(redis, { status, metrics, log }) : undefined;
  const limiter = opts.limiter ?? (windows ? new SharedRateLimiter(windows) : new MemoryRateLimiter());
  const echoLimiter = windows ? new LeasedRateLimiter(windows) : limiter;
  const replay = { streamLength: config.eventStreamLength, replayMax: config.eventReplayMax };
  const events =
    opts.events ??
    (redis
      ? new RedisEventBus(redis, { ...replay, status, metrics, log })
      : new MemoryEventBus({ length: replay.streamLength, replayMax: replay.replayMax }));
  const readiness = new Readiness();
  const now = opts.now ?? Date.now;
  const ctx: AppContext = {
    config,
    store,
    history,
    limiter,
    echoLimiter,
    events,
    log,
    endpoints: new EndpointCache(store, endpointResolver(config), ENDPOINT_CACHE_MAX, { fence, metrics }),
    domains,
    tunnels: new TunnelHub({
      timeoutMs: config.tunnelTimeout,
      maxConcurrent: config.tunnelMaxConcurrent,
      maxClients: config.tunnelMaxClients,
      pingIntervalMs: config.tunnelPingInterval,
      events,
      log,
    }),
    outbound: new OutboundClient({
      allow: config.proxyAllow,
      deny: config.proxyDeny,
      timeout: config.proxyTimeout,
    }),
    callouts: new CalloutQueue({
      concurrency: config.calloutConcurrency,
      maxQueued: config.calloutQueue,
      maxPerEndpoint: config.calloutQueuePerEndpoint,
      log,
    }),
    crudLists: new CrudListBudget({
      total: config.crudListBufferedBytes,
      perIp: config.crudListBufferedBytesPerIp,
      writeTimeoutMs: config.requestTimeout,
    }),
    sse: new SseHub(config.sseMaxBufferedTotal),
    now,
    redis,
    fence,
    status,
    metrics,
    readiness,
    health: new HealthProbe({ store, redis, status, history, readiness, now }),
  };
  ctx.health.sampleInto(ctx.metrics);
  if (redis) {
    // One secret for every instance on the database, written by the first to start (tunnel/hop-wire.ts).
    const secret = await store.claimMeta(HOP_SECRET_META, randomBytes(32).toString('base64url'));
    tunnelHops = new TunnelCluster({
      hub: ctx.tunnels,
      redis,
      status,
      metrics: ctx.metrics,
      secret,
      instanceUrl: () => {
        if (config.instanceUrl !== undefined) return config.instanceUrl;
        const addr = fastify.server.address();
        const port = typeof addr === 'object' && addr ? addr.port : config.port;
        return defaultInstanceUrl(config.host, port, https !== null);
      },
      timeoutMs: config.tunnelTimeout,
      log,
    });
  }
  publishRequestEvents(ctx, (entry) => historyRecord(entry, false));
  // Every endpoint change a command announces drops the endpoint's cached entry (src/admin/).
  ctx.endpoints.listen(events);

  const generatedAdminKey = await ensureAdminKey(store, config.apiKey);

  const requestLine = requestLog(log);
  logRequests(fastify, requestLine);
  installErrorHandlers(fastify, log);
  installJsonBodyParser(fastify);

  // Every method Node parses (WebDAV's included; CONNECT is a tunnel) reaches a route or the 404 in
  // our shape, not Fastify's refusal of a method it does not know.
  for (const m of METHODS) {
    if (m !== 'CONNECT' && !fastify.supportedMethods.includes(m)) fastify.addHttpMethod(m, { hasBody: true });
  }
  // `Expect: 100-continue` with a declared body over the limit: 413 at once.
  answerExpectContinue(fastify.server, config.bodyLimit, (req) =>
    targetOf(req)?.pathForm === true ? SANDBOX_HEADERS : {},
  );
  refuseConnect(fastify.server);
  // An upgrade is dispatched like any request: the local tunnel's through the API's hooks, one to an
  // endpoint through the door.
  routeUpgrades(fastify.server, listener, isTunnelUpgrade);
  capConnectionsPerIp(fastify.server, config.maxConnectionsPerIp);
  // What the proxy records is appended by the same command as the API's recording route.
  const user = mockPipeline(ctx, (ep, data) => appendRecordedRule(ctx, ep, data));
  const routing: EndpointRouting<Endpoint> = {
    builtIn: new Map([[ECHO_ENDPOINT, echoPipeline(ctx)]]),
    user,
    endpoints: ctx.endpoints,
  };
  const lifecycle = endpointLifecycle(ctx, routing);
  const door = endpointPlane({
    lifecycle,
    log: requestLine,
    logger: log,
    captureLimit: config.captureLimit,
    faultTimeoutMax: config.faultTimeoutMax,
  });
  plane = door;
  // gRPC on the same port: HTTP/2 over TLS (ALPN h2) or h2c on the cleartext port, and gRPC-Web.
  calls = grpcDoor({
    resolve: async (name) => {
      const r = await lifecycle.resolve({ name, path: '/', pathForm: false });
      return r === undefined ? undefined : r.pipeline === user ? r.endpoint : 'built-in';
    },
    named: endpointNamer(config.baseDomain, domains),
    serve: grpcService(ctx),
    call: {},
  });
  const onStream: StreamHandler = (stream, headers, socket) => calls.stream(stream, headers, socket);
  if (https) acceptH2OverTls(fastify.server as unknown as HttpsServer, onStream);
  // h2c on the cleartext port unless GRPC_CLEARTEXT=false: a connection opening with the HTTP/2 preface
  // is HTTP/2, every other one is Node's HTTP/1.1 as before.
  else if (config.grpcH2c) acceptH2c(fastify.server, onStream);
  // Closing, the door answers 503, as Fastify does (return503OnClosing) for the management plane.
  fastify.addHook('preClose', (done) => {
    door.close();
    done();
  });
  await fastify.register(async (scope) => apiRoutes(scope, ctx), { prefix: '/api/v2' });
  await fastify.register(async (scope) => opsRoutes(scope, ctx));
  await fastify.register(async (scope) => totpRoutes(scope, ctx));
  await fastify.register(async (scope) =>
    dashboardRoutes(scope, opts.dashboardDir === undefined ? {} : { dir: opts.dashboardDir }),
  );
  const jobs = startBackgroundJobs(ctx);
  const fileWatch =
    !opts.store && !config.databaseUrl
      ? watchDataFile(sqliteFile(config.dataDir), log, opts.dataFileCheckMs)
      : undefined;

  readiness.ready();
  let metricsListener: MetricsListener | undefined;
  let closed = false;
  return {
    fastify,
    ctx,
    generatedAdminKey,
    plane: door,
    async inject(opts) {
      await fastify.ready();
      return inject(listener, opts);
    },
    async listenMetrics() {
      if (config.metricsPort === undefined) return undefined;
      metricsListener ??= await listenMetrics(ctx, config.metricsHost, config.metricsPort);
      return metricsListener.port;
    },
    async close() {
      if (closed) return { historyLost: 0 };
      closed = true;
      // Readiness fails at once; requests (new connections included) are served for DRAIN_DELAY, so
      // that the load balancer takes the instance out before its listener closes.
      readiness.drain();
      if (config.drainDelay > 0) {
        log.info({ ms: config.drainDelay }, 'draining: /readyz answers 503; serving until the delay ends');
        await new Promise((resolve) => setTimeout(resolve, config.drainDelay));
      }
      const closing = Date.now();
      // Other instances stop hopping requests here at once; the tunnels themselves close below.
      const leasesReleased = tunnelHops?.releaseLeases();
      // Requests still open at the deadline (a client trickling its body) are cut: the history of those
      // answered is flushed below either way, before a supervisor's SIGKILL could lose it.
      const deadline = setTimeout(() => {
        log.warn({ ms: config.shutdownTimeout }, 'shutdown deadline reached; closing open connections');
        fastify.server.closeAllConnections();
      }, config.shutdownTimeout);
      // The server's close waits for the tunnels' sockets: they close once their requests are answered.
      const tunnelsClosed = ctx.tunnels.close(config.shutdownTimeout);
      try {
        await fastify.close();
      } finally {
        clearTimeout(deadline);
      }
      await tunnelsClosed;
      await leasesReleased;
      tunnelHops?.close();
      // Async callouts: those waiting for their delay are cancelled now; those being sent get what is
      // left of the shutdown deadline, then are aborted. Each records its outcome before the history
      // is flushed below.
      const callouts = await ctx.callouts.close(Math.max(0, config.shutdownTimeout - (Date.now() - closing)));
      if (callouts.cancelled + callouts.aborted > 0) log.info(callouts, 'async callouts settled at shutdown');
      await jobs.stop();
      await ctx.outbound.close();
      await fileWatch?.stop();
      const historyLost = await history.close();
      log.info(history.stats(), 'history writer stopped');
      await limiter.close?.();
      if (echoLimiter !== limiter) await echoLimiter.close?.();
      windows?.close();
      await events.close();
      await fence?.stop();
      await redis?.close();
      await metricsListener?.close();
      if (!opts.store) await store.close();
      logStream.flushSync();
      return { historyLost };
    },
  };
}
