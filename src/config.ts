/**
 * Configuration: every setting has an environment variable and a flag (flags win), a default, and a
 * parser that rejects bad values with one clear sentence. `loadConfig` never exits; the CLI turns a
 * ConfigError into one line on stderr and a non-zero exit.
 */
import { resolve } from 'node:path';
import { parseCidr } from './outbound/index.js';
import { checkRegularFile } from './regular-file.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface Config {
  port: number;
  host: string;
  baseDomain: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /**
   * The URL other instances reach this one at (the tunnel's hop between instances); unset: built from
   * HOST (or the host name when HOST binds every address) and the port listened on.
   */
  instanceUrl: string | undefined;
  apiKey: string | undefined;
  trustProxy: boolean;
  /** gRPC over h2c on the cleartext port (GRPC_CLEARTEXT). */
  grpcH2c: boolean;
  echoRateLimit: number;
  totpRateLimit: number;
  secretKey: string | undefined;
  logLevel: string;
  /** `auto`: readable lines when stdout is a terminal, JSON lines otherwise. */
  logFormat: 'auto' | 'json' | 'pretty';
  tlsCert: string | undefined;
  tlsKey: string | undefined;
  /** Largest request body accepted, in bytes, counted on the wire. */
  bodyLimit: number;
  /** Largest body kept in the history; longer bodies are cut and flagged. */
  captureLimit: number;
  /** A whole request (headers and body) must arrive within this many ms, else 408. */
  requestTimeout: number;
  /** Request headers must arrive within this many ms. */
  headersTimeout: number;
  /** An idle keep-alive connection is closed after this many ms. */
  keepAliveTimeout: number;
  /** Open connections one client address may hold. */
  maxConnectionsPerIp: number;
  /** Event streams (SSE) open at once on this instance, all keys together. */
  sseMaxStreams: number;
  /** Event streams one API key may hold open at once. */
  sseMaxStreamsPerKey: number;
  /** Bytes an event stream's reader may leave unread before its connection is reset. */
  sseMaxBuffered: number;
  /** Bytes all event streams' readers may leave unread together; past it the furthest behind are reset. */
  sseMaxBufferedTotal: number;
  /** Live events kept for dashboards that reconnect: the Redis stream's length (about), or this instance's memory without Redis. */
  eventStreamLength: number;
  /** Most events one reconnecting dashboard is sent; one that missed more is reset (it reloads). */
  eventReplayMax: number;
  /** On SIGTERM, requests still open after this many ms are cut, and the history is flushed anyway. */
  shutdownTimeout: number;
  /**
   * On SIGTERM, ms during which /readyz already answers 503 while requests, new connections included,
   * are still served: the load balancer sees the instance leave before its listener closes.
   */
  drainDelay: number;
  /** A port of its own on which GET /metrics is served without a key; undefined: none (0: any free port). */
  metricsPort: number | undefined;
  /** The address METRICS_PORT binds. */
  metricsHost: string;
  /** Extra header names stored, published and logged redacted, beside the built-in sensitive ones. */
  redactHeaders: string[];
  /** Keep sensitive headers verbatim in the history and events (an operator's opt-in). */
  keepSensitiveHeaders: boolean;
  /** Failed API authentications a minute from one client IP before it is refused (429) until the minute ends. */
  authFailureLimit: number;
  /** Worker threads reading uploaded QR images at once. */
  qrWorkers: number;
  /** QR images that may wait for a worker; one more is refused with 503 at once. */
  qrQueue: number;
  /** Longest time one QR image may take once a worker has it, in ms; then 422. */
  qrTimeout: number;
  /** Largest response blob uploaded with POST …/blobs, in bytes. */
  blobLimit: number;
  /** Bytes of blobs one endpoint holds; an upload past it is 413. */
  blobQuota: number;
  /** Bytes of blobs all endpoints hold together; an upload past it is 413. */
  blobQuotaTotal: number;
  /** Largest OpenAPI document uploaded with POST …/specs, in bytes. */
  oasSpecLimit: number;
  /** Largest HAR document uploaded with POST …/import/har, in bytes. */
  harImportLimit: number;
  /** Work units expanding an OpenAPI document's schema composition may cost; past it the upload is 400. */
  oasSchemaBudget: number;
  // ---- CRUD collections (issue 13 part 3) ----
  /** Items one CRUD collection holds; a creation past it is 409. */
  crudMaxItems: number;
  /** Items all CRUD collections of one endpoint hold. */
  crudMaxEndpointItems: number;
  /** Bytes (items' JSON text) all CRUD collections of one endpoint hold. */
  crudMaxEndpointBytes: number;
  /** Bytes of one CRUD list page's JSON (at least one item); the page stops early with a next link. */
  crudListMaxBytes: number;
  /** Bytes of CRUD list answers being written at once, all clients together; past it a read is 429. */
  crudListBufferedBytes: number;
  /** Bytes of CRUD list answers being written at once to one client address; past it a read is 429. */
  crudListBufferedBytesPerIp: number;
  /** Bytes of one CRUD item's JSON text; larger is 413. */
  crudMaxItemBytes: number;
  // ---- end CRUD collections ----
  /** Where the faker image helpers point (`<host>/640/480/<category>`). */
  imageHost: string;
  /** Bytes of one response template's source; a larger one is refused when saved (400). */
  templateMaxBytes: number;
  /** Mustaches (`{{`) in one response template; more are refused when saved (400). */
  templateMaxMustaches: number;
  /** Blocks and subexpressions open at once in one response template; deeper is refused when saved (400). */
  templateMaxNesting: number;
  /** Characters of fake data one render may ask faker for through size arguments; past it 561. */
  templateMaxFakeData: number;
  /** Loop iterations times the template's mustaches, one render; past it 561. */
  templateMaxLoopWork: number;
  /** Ms an upstream (proxy target) has to connect and send its headers, and the longest pause in its body. */
  proxyTimeout: number;
  /** CIDR ranges a proxy target may be in although the built-in list denies them. */
  proxyAllow: string[];
  /** CIDR ranges a proxy target may not be in, besides the built-in list. */
  proxyDeny: string[];
  /** Async rule callouts being sent at once (the rest wait their turn). */
  calloutConcurrency: number;
  /** Async rule callouts waiting (for their delay or a turn), whole server; past it one is not sent. */
  calloutQueue: number;
  /** Async rule callouts waiting for one endpoint; past it that endpoint's next one is not sent. */
  calloutQueuePerEndpoint: number;
  /** Times a request may come back through this instance's callouts before the next is a loop. */
  calloutMaxDepth: number;
  /** Ms a `timeout` fault holds its connection (sending nothing) before the server closes it. */
  faultTimeoutMax: number;
  historyRetentionDays: number;
  historyMaxEntries: number;
  /** Most entries one history export (`format=har` or `ndjson`) writes. */
  historyExportMax: number;
  /** Bytes of history (bodies, headers, files) kept per endpoint; the oldest entries go past it. */
  historyMaxBytes: number;
  /** Entries waiting to be written; past it the oldest are dropped and counted. */
  historyQueueEntries: number;
  /** Bytes waiting to be written; past it the oldest entries are dropped and counted. */
  historyQueueBytes: number;
  /** SQLite: ms an API write waits for a lock another connection holds before 503 store_unavailable. */
  storeBusyTimeout: number;
  totpRetentionDays: number;
  /** Local tunnel: ms the local service has to start answering (status and headers) before 504. */
  tunnelTimeout: number;
  /** Local tunnel: requests one connected client is answering at once; past it the next client, else 503. */
  tunnelMaxConcurrent: number;
  /** Local tunnel: clients connected to one endpoint at once; one more is refused (409). */
  tunnelMaxClients: number;
  /** Local tunnel: ms between pings; a client that has not answered the previous one is dropped. */
  tunnelPingInterval: number;
  /** Endpoint state: items one endpoint holds (counters, strings and lists together). */
  stateMaxItems: number;
  /** Endpoint state: bytes of one item's value, as JSON (a whole list counts as one value). */
  stateMaxValue: number;
  /** Endpoint state: values one list holds. */
  stateMaxList: number;
  plansFile: string | undefined;
  defaultPlan: string;
  /** A mocks-as-code file (YAML or JSON) loaded at start: endpoints, settings, rules, state, OpenAPI. */
  configFile: string | undefined;
  /** Largest mocks-as-code file, PLANS_FILE, TLS_CERT or TLS_KEY read, in bytes (checked before reading). */
  configFileLimit: number;
}

type Parser<T> = (raw: string, name: string) => T;

interface Setting<K extends keyof Config> {
  key: K;
  env: string;
  flag: string;
  help: string;
  default: Config[K];
  parse: Parser<Config[K]>;
}

const str: Parser<string> = (raw) => raw;
const optStr: Parser<string | undefined> = (raw) => (raw === '' ? undefined : raw);

function int(min: number, max: number): Parser<number> {
  return (raw, name) => {
    if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
    const n = Number(raw);
    if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${raw}`);
    return n;
  };
}

const bool: Parser<boolean> = (raw, name) => {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
};

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const logLevel: Parser<string> = (raw, name) => {
  if (!LOG_LEVELS.includes(raw))
    throw new ConfigError(`${name} must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return raw;
};

const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
const logFormat: Parser<Config['logFormat']> = (raw, name) => {
  const v = LOG_FORMATS.find((f) => f === raw);
  if (v === undefined)
    throw new ConfigError(`${name} must be one of ${LOG_FORMATS.join(', ')}, got "${raw}"`);
  return v;
};

const domain: Parser<string> = (raw, name) => {
  const v = raw.trim().toLowerCase();
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(v))
    throw new ConfigError(`${name} must be a domain name such as mock.example.com, got "${raw}"`);
  return v;
};

function url(protocols: string[]): Parser<string | undefined> {
  return (raw, name) => {
    if (raw === '') return undefined;
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new ConfigError(`${name} must be a URL (${protocols.join(' or ')}), got "${raw}"`);
    }
    if (!protocols.includes(u.protocol.replace(/:$/, '')))
      throw new ConfigError(`${name} must start with ${protocols.map((p) => p + '://').join(' or ')}`);
    return raw;
  };
}

/** An instance's own base URL: http(s), no credentials, query or fragment; kept without a trailing slash. */
const instanceUrl: Parser<string | undefined> = (raw, name) => {
  const v = url(['http', 'https'])(raw.trim(), name);
  if (v === undefined) return v;
  const u = new URL(v);
  if (u.username !== '' || u.password !== '' || u.search !== '' || u.hash !== '')
    throw new ConfigError(
      `${name} must be a plain http(s)://host:port URL (no credentials, query or fragment)`,
    );
  return u.toString().replace(/\/+$/, '');
};

/** A file the operator names: it must open at once and be a regular file; nothing is read here. */
const file: Parser<string | undefined> = (raw, name) => {
  if (raw === '') return undefined;
  try {
    checkRegularFile(raw);
  } catch (err) {
    // A system error (missing, no permission) says little more than this; a refusal says what it is.
    if ((err as NodeJS.ErrnoException).code !== undefined)
      throw new ConfigError(`${name} names a file that cannot be read: ${raw}`);
    throw new ConfigError(`${name}: ${(err as Error).message}`);
  }
  return raw;
};

/** A comma-separated list of CIDR ranges (or single addresses). */
const cidrList: Parser<string[]> = (raw, name) => {
  const ranges = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const r of ranges) {
    try {
      parseCidr(r);
    } catch (err) {
      throw new ConfigError(
        `${name} must list CIDR ranges such as 10.0.0.0/8 or fd00::/8: ${(err as Error).message}`,
      );
    }
  }
  return ranges;
};

const MB = 1024 * 1024;
/** HISTORY_EXPORT_MAX by default: the entries one HAR or NDJSON export writes unless told fewer. */
export const HISTORY_EXPORT_MAX_DEFAULT = 10_000;
/** The most HISTORY_EXPORT_MAX may be set to (the export's `limit` parameter is checked against it too). */
export const HISTORY_EXPORT_CEILING = 1_000_000;

/** OAS_SPEC_LIMIT's default: the largest OpenAPI document, or a zip's files uncompressed. */
export const OAS_SPEC_LIMIT_DEFAULT = 16 * 1024 * 1024;
/** OAS_SCHEMA_BUDGET's default, also the budget of a raw schema given to the generator. */
export const OAS_SCHEMA_BUDGET_DEFAULT = 1_000_000;

/** CONFIG_FILE_LIMIT's default, also the limit of `mockingbird import`, which has no settings. */
export const CONFIG_FILE_LIMIT_DEFAULT = 16 * MB;

/** An operator's admin key: long and varied enough not to be guessed. */
export const ADMIN_KEY_MIN_LENGTH = 32;
export const ADMIN_KEY_MIN_DISTINCT = 12;

/** Every setting, in the order `serve --help` lists them. */
export const SETTINGS: Setting<keyof Config>[] = [
  { key: 'port', env: 'PORT', flag: 'port', help: 'HTTP port', default: 8080, parse: int(0, 65535) },
  {
    key: 'host',
    env: 'HOST',
    flag: 'host',
    help: 'bind address (0.0.0.0 to expose)',
    default: '127.0.0.1',
    parse: str,
  },
  {
    key: 'baseDomain',
    env: 'BASE_DOMAIN',
    flag: 'base-domain',
    help: 'domain whose sub-domains are endpoints',
    default: 'localhost',
    parse: domain,
  },
  {
    key: 'dataDir',
    env: 'DATA_DIR',
    flag: 'data-dir',
    help: 'where the SQLite database and key files live',
    default: './data',
    parse: str,
  },
  {
    key: 'databaseUrl',
    env: 'DATABASE_URL',
    flag: 'database-url',
    help: 'postgres://… switches storage to PostgreSQL',
    default: undefined,
    parse: url(['postgres', 'postgresql']),
  },
  {
    key: 'redisUrl',
    env: 'REDIS_URL',
    flag: 'redis-url',
    help: 'redis://… through which instances coordinate: live events, rate limits, freshness, tunnels (docs/deploy.md)',
    default: undefined,
    parse: url(['redis', 'rediss']),
  },
  {
    key: 'instanceUrl',
    env: 'INSTANCE_URL',
    flag: 'instance-url',
    help: 'http(s)://host:port other instances reach this one at (tunnel hops; default: HOST or the host name, and PORT)',
    default: undefined,
    parse: instanceUrl,
  },
  {
    key: 'apiKey',
    env: 'MOCKINGBIRD_API_KEY',
    flag: 'api-key',
    help: 'admin API key, at least 32 characters (generated at first start if unset)',
    default: undefined,
    parse: (raw, name) => {
      const v = optStr(raw, name);
      if (v === undefined) return v;
      // An admin key guards everything: a short or repetitive one would be guessed (SPEC §12).
      if (v.length < ADMIN_KEY_MIN_LENGTH)
        throw new ConfigError(
          `${name} must have at least ${ADMIN_KEY_MIN_LENGTH} characters (got ${v.length})`,
        );
      if (new Set(v).size < ADMIN_KEY_MIN_DISTINCT)
        throw new ConfigError(`${name} must use at least ${ADMIN_KEY_MIN_DISTINCT} different characters`);
      if (/\s/.test(v)) throw new ConfigError(`${name} must not contain spaces`);
      return v;
    },
  },
  {
    key: 'trustProxy',
    env: 'TRUST_PROXY',
    flag: 'trust-proxy',
    help: 'take client IP and scheme from X-Forwarded-*',
    default: false,
    parse: bool,
  },
  {
    key: 'grpcH2c',
    env: 'GRPC_CLEARTEXT',
    flag: 'grpc-cleartext',
    help: 'serve gRPC over h2c (cleartext HTTP/2) on the port beside HTTP/1.1 (false turns it off)',
    default: true,
    parse: bool,
  },
  {
    key: 'echoRateLimit',
    env: 'ECHO_RATE_LIMIT',
    flag: 'echo-rate-limit',
    help: 'echo requests a minute per client IP',
    default: 1000,
    parse: int(1, 10_000_000),
  },
  {
    key: 'totpRateLimit',
    env: 'TOTP_RATE_LIMIT',
    flag: 'totp-rate-limit',
    help: 'TOTP API requests a minute per client IP',
    default: 10,
    parse: int(1, 10_000_000),
  },
  {
    key: 'secretKey',
    env: 'SECRET_KEY',
    flag: 'secret-key',
    help: 'key that encrypts TOTP secrets at rest',
    default: undefined,
    parse: optStr,
  },
  {
    key: 'logLevel',
    env: 'LOG_LEVEL',
    flag: 'log-level',
    help: 'pino log level',
    default: 'info',
    parse: logLevel,
  },
  {
    key: 'logFormat',
    env: 'LOG_FORMAT',
    flag: 'log-format',
    help: 'auto (readable, coloured lines on a terminal, JSON lines otherwise), json or pretty',
    default: 'auto',
    parse: logFormat,
  },
  {
    key: 'tlsCert',
    env: 'TLS_CERT',
    flag: 'tls-cert',
    help: 'PEM certificate: serve HTTPS',
    default: undefined,
    parse: file,
  },
  {
    key: 'tlsKey',
    env: 'TLS_KEY',
    flag: 'tls-key',
    help: 'PEM private key: serve HTTPS',
    default: undefined,
    parse: file,
  },
  {
    key: 'bodyLimit',
    env: 'BODY_LIMIT',
    flag: 'body-limit',
    help: 'largest request body in bytes',
    default: MB,
    parse: int(1024, 100 * MB),
  },
  {
    key: 'captureLimit',
    env: 'CAPTURE_LIMIT',
    flag: 'capture-limit',
    help: 'largest body kept in the history, in bytes',
    default: MB,
    parse: int(0, 100 * MB),
  },
  {
    key: 'requestTimeout',
    env: 'REQUEST_TIMEOUT',
    flag: 'request-timeout',
    help: 'ms within which a whole request (headers and body) must arrive, else 408',
    default: 30_000,
    parse: int(1000, 3_600_000),
  },
  {
    key: 'headersTimeout',
    env: 'HEADERS_TIMEOUT',
    flag: 'headers-timeout',
    help: 'ms within which request headers must arrive, else 408',
    default: 10_000,
    parse: int(1000, 3_600_000),
  },
  {
    key: 'keepAliveTimeout',
    env: 'KEEP_ALIVE_TIMEOUT',
    flag: 'keep-alive-timeout',
    help: 'ms an idle keep-alive connection stays open',
    default: 5000,
    parse: int(100, 600_000),
  },
  {
    key: 'maxConnectionsPerIp',
    env: 'MAX_CONNECTIONS_PER_IP',
    flag: 'max-connections-per-ip',
    help: 'open connections one client address may hold',
    default: 256,
    parse: int(1, 1_000_000),
  },
  // Each open event stream costs a socket, a bus subscription and what its reader leaves unread (up to
  // about 2 × SSE_MAX_BUFFERED during a burst), and every event is written to each stream of its
  // endpoint: unbounded, 2,000 streams that never read took 3.5 GB (issue 11). All readers together
  // hold at most SSE_MAX_BUFFERED_TOTAL from one tick to the next (issue 30).
  {
    key: 'sseMaxStreams',
    env: 'SSE_MAX_STREAMS',
    flag: 'sse-max-streams',
    help: 'event streams open at once, all keys together (more are refused with 429)',
    default: 1000,
    parse: int(1, 1_000_000),
  },
  {
    key: 'sseMaxStreamsPerKey',
    env: 'SSE_MAX_STREAMS_PER_KEY',
    flag: 'sse-max-streams-per-key',
    help: 'event streams one API key may hold open (more are refused with 429)',
    default: 20,
    parse: int(1, 1_000_000),
  },
  {
    key: 'sseMaxBuffered',
    env: 'SSE_MAX_BUFFERED',
    flag: 'sse-max-buffered',
    help: 'bytes an event stream reader may leave unread before its connection is cut',
    default: 256 * 1024,
    parse: int(1024, 64 * MB),
  },
  {
    key: 'sseMaxBufferedTotal',
    env: 'SSE_MAX_BUFFERED_TOTAL',
    flag: 'sse-max-buffered-total',
    help: 'bytes all event stream readers may leave unread together (the furthest behind are cut past it)',
    default: 64 * MB,
    parse: int(1024, 2 ** 40),
  },
  // A dashboard that reconnects with Last-Event-ID gets what it missed from these (issue 33, item 2):
  // with REDIS_URL the shared stream (entries of every instance, Redis memory), else this instance's
  // memory (events of endpoints someone listens to). Each kept event is its data, a summary of about a
  // kilobyte for request.created.
  {
    key: 'eventStreamLength',
    env: 'EVENT_STREAM_LENGTH',
    flag: 'event-stream-length',
    help: 'live events kept for dashboards that reconnect (Redis stream length, or memory without Redis)',
    default: 10_000,
    parse: int(10, 10_000_000),
  },
  {
    key: 'eventReplayMax',
    env: 'EVENT_REPLAY_MAX',
    flag: 'event-replay-max',
    help: 'most events sent to one reconnecting dashboard (one that missed more is told to reload)',
    default: 1000,
    parse: int(0, 1_000_000),
  },
  {
    key: 'shutdownTimeout',
    env: 'SHUTDOWN_TIMEOUT',
    flag: 'shutdown-timeout',
    help: 'ms after SIGTERM before open requests are cut (the history is flushed anyway)',
    default: 10_000,
    parse: int(0, 600_000),
  },
  {
    key: 'drainDelay',
    env: 'DRAIN_DELAY',
    flag: 'drain-delay',
    help: 'ms after SIGTERM during which /readyz is 503 and requests are still served, before the listener closes',
    default: 0,
    parse: int(0, 600_000),
  },
  {
    key: 'metricsPort',
    env: 'METRICS_PORT',
    flag: 'metrics-port',
    help: 'a port of its own serving GET /metrics without a key (unset: none; /metrics on PORT needs the admin key)',
    default: undefined,
    parse: (raw, name) => (raw.trim() === '' ? undefined : int(0, 65535)(raw, name)),
  },
  {
    key: 'metricsHost',
    env: 'METRICS_HOST',
    flag: 'metrics-host',
    help: 'bind address of METRICS_PORT',
    default: '127.0.0.1',
    parse: str,
  },
  {
    key: 'redactHeaders',
    env: 'REDACT_HEADERS',
    flag: 'redact-headers',
    help: 'more header names to redact in history, events and logs (comma-separated)',
    default: [],
    parse: (raw, name) => {
      const names = raw
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter((s) => s !== '');
      const bad = names.find((n) => !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(n));
      if (bad !== undefined) throw new ConfigError(`${name} must list header names, got "${bad}"`);
      return names;
    },
  },
  {
    key: 'keepSensitiveHeaders',
    env: 'KEEP_SENSITIVE_HEADERS',
    flag: 'keep-sensitive-headers',
    help: 'keep Authorization, Cookie, Set-Cookie … verbatim in history and events',
    default: false,
    parse: bool,
  },
  {
    key: 'authFailureLimit',
    env: 'AUTH_FAILURE_LIMIT',
    flag: 'auth-failure-limit',
    help: 'failed API authentications a minute per client IP before it is refused (429)',
    default: 30,
    parse: int(1, 100_000),
  },
  {
    key: 'qrWorkers',
    env: 'QR_WORKERS',
    flag: 'qr-workers',
    help: 'worker threads reading uploaded TOTP QR images at once',
    default: 1,
    parse: int(1, 64),
  },
  {
    key: 'qrQueue',
    env: 'QR_QUEUE',
    flag: 'qr-queue',
    help: 'QR images that may wait for a worker; one more is refused (503)',
    default: 8,
    parse: int(0, 1000),
  },
  {
    key: 'qrTimeout',
    env: 'QR_TIMEOUT',
    flag: 'qr-timeout',
    help: 'ms one QR image may take once a worker has it, else 422',
    default: 10_000,
    parse: int(100, 600_000),
  },
  {
    key: 'blobLimit',
    env: 'BLOB_LIMIT',
    flag: 'blob-limit',
    help: 'largest response blob (POST …/blobs) in bytes',
    default: 10 * MB,
    parse: int(1024, 100 * MB),
  },
  // Blobs are stored in the database and were bounded per upload only: 330 MB on one endpoint in 4 s.
  {
    key: 'blobQuota',
    env: 'BLOB_QUOTA',
    flag: 'blob-quota',
    help: 'bytes of blobs one endpoint holds (an upload past it is 413)',
    default: 100 * MB,
    parse: int(1024, 2 ** 40),
  },
  {
    key: 'blobQuotaTotal',
    env: 'BLOB_QUOTA_TOTAL',
    flag: 'blob-quota-total',
    help: 'bytes of blobs all endpoints hold together (an upload past it is 413)',
    default: 1024 * MB,
    parse: int(1024, 2 ** 40),
  },
  // ---- CRUD collections (issue 13 part 3) ----
  {
    key: 'crudMaxItems',
    env: 'CRUD_MAX_ITEMS',
    flag: 'crud-max-items',
    help: 'items one CRUD collection holds (a creation past it is 409)',
    default: 10_000,
    parse: int(1, 10_000_000),
  },
  {
    key: 'crudMaxEndpointItems',
    env: 'CRUD_MAX_TOTAL_ITEMS',
    flag: 'crud-max-total-items',
    help: 'items all CRUD collections of one endpoint hold (a creation past it is 409)',
    default: 100_000,
    parse: int(1, 100_000_000),
  },
  {
    key: 'crudMaxEndpointBytes',
    env: 'CRUD_MAX_TOTAL_BYTES',
    flag: 'crud-max-total-bytes',
    help: "bytes of items' JSON all CRUD collections of one endpoint hold (a write past it is 409)",
    default: 64 * MB,
    parse: int(1024, 2 ** 40),
  },
  {
    key: 'crudMaxItemBytes',
    env: 'CRUD_MAX_ITEM_BYTES',
    flag: 'crud-max-item-bytes',
    help: "bytes of one CRUD item's JSON (larger is 413)",
    default: MB,
    parse: int(64, 100 * MB),
  },
  // List reads need no key: a page of 100 items of 1 MiB was ~100 MB built per read, and 48 readers
  // that never read held 4.4 GB. Pages are bounded in bytes, and so is what all pages being written hold.
  {
    key: 'crudListMaxBytes',
    env: 'CRUD_LIST_MAX_BYTES',
    flag: 'crud-list-max-bytes',
    help: 'bytes of one CRUD list page (at least one item); a longer list continues on the next page',
    default: MB,
    parse: int(1024, 100 * MB),
  },
  {
    key: 'crudListBufferedBytes',
    env: 'CRUD_LIST_BUFFERED_BYTES',
    flag: 'crud-list-buffered-bytes',
    help: 'bytes of CRUD list answers being written at once, all clients (past it a read is 429)',
    default: 64 * MB,
    parse: int(1024, 2 ** 40),
  },
  {
    key: 'crudListBufferedBytesPerIp',
    env: 'CRUD_LIST_BUFFERED_BYTES_PER_IP',
    flag: 'crud-list-buffered-bytes-per-ip',
    help: 'bytes of CRUD list answers being written at once to one client address (past it 429)',
    default: 8 * MB,
    parse: int(1024, 2 ** 40),
  },
  // ---- end CRUD collections ----
  {
    key: 'oasSpecLimit',
    env: 'OAS_SPEC_LIMIT',
    flag: 'oas-spec-limit',
    help: 'largest OpenAPI document (POST …/specs) in bytes; a zip of documents counts its uncompressed bytes',
    default: OAS_SPEC_LIMIT_DEFAULT,
    parse: int(1024, 100 * MB),
  },
  {
    key: 'harImportLimit',
    env: 'HAR_IMPORT_LIMIT',
    flag: 'har-import-limit',
    help: 'largest HAR document (POST …/import/har) in bytes',
    default: 16 * MB,
    parse: int(1024, 256 * MB),
  },
  // allOf: [A1, A1] twenty levels deep is 2 KB that expands to 2^20 copies: 6 s a request when it was
  // expanded per request (issue 30). Expanded once at upload instead, within this many work units.
  {
    key: 'oasSchemaBudget',
    env: 'OAS_SCHEMA_BUDGET',
    flag: 'oas-schema-budget',
    help: "work units an OpenAPI document's schema composition (allOf, oneOf, anyOf, $ref) may cost to expand; past it the upload is 400",
    default: OAS_SCHEMA_BUDGET_DEFAULT,
    parse: int(100, 1_000_000_000),
  },
  {
    key: 'imageHost',
    env: 'IMAGE_HOST',
    flag: 'image-host',
    help: 'base URL of the placeholder images that template faker image helpers link to',
    default: 'https://loremflickr.com',
    parse: (raw, name) => {
      const v = url(['http', 'https'])(raw, name);
      if (v === undefined) throw new ConfigError(`${name} must be an http:// or https:// URL`);
      return v.replace(/\/+$/, '');
    },
  },
  {
    key: 'templateMaxBytes',
    env: 'TEMPLATE_MAX_BYTES',
    flag: 'template-max-bytes',
    help: "bytes of one response template's source; a larger one is refused when saved (400)",
    default: MB,
    parse: int(1024, 16 * MB),
  },
  {
    key: 'templateMaxMustaches',
    env: 'TEMPLATE_MAX_MUSTACHES',
    flag: 'template-max-mustaches',
    help: 'mustaches ({{) in one response template; more are refused when saved (400)',
    default: 500,
    parse: int(1, 100_000),
  },
  {
    key: 'templateMaxNesting',
    env: 'TEMPLATE_MAX_NESTING',
    flag: 'template-max-nesting',
    help: 'blocks and subexpressions open at once in one response template; deeper is refused when saved (400)',
    default: 32,
    parse: int(1, 1000),
  },
  {
    key: 'templateMaxFakeData',
    env: 'TEMPLATE_MAX_FAKE_DATA',
    flag: 'template-max-fake-data',
    help: 'characters of fake data one template render may ask faker for through size arguments (561 past it)',
    default: 100_000,
    parse: int(100, MB),
  },
  {
    key: 'templateMaxLoopWork',
    env: 'TEMPLATE_MAX_LOOP_WORK',
    flag: 'template-max-loop-work',
    help: "loop iterations times the template's mustaches in one template render (561 past it)",
    default: 200_000,
    parse: int(1000, 100_000_000),
  },
  {
    key: 'proxyTimeout',
    env: 'PROXY_TIMEOUT',
    flag: 'proxy-timeout',
    help: 'ms a proxy target has to connect and answer with headers (else 504), and the longest pause in its body',
    default: 30_000,
    parse: int(100, 3_600_000),
  },
  {
    key: 'proxyAllow',
    env: 'PROXY_ALLOW',
    flag: 'proxy-allow',
    help: 'CIDR ranges proxy and callout targets may use although denied by default (loopback, private, CGNAT, link-local…; e.g. 127.0.0.0/8,10.0.0.0/8), comma-separated',
    default: [],
    parse: cidrList,
  },
  {
    key: 'proxyDeny',
    env: 'PROXY_DENY',
    flag: 'proxy-deny',
    help: 'CIDR ranges proxy and callout targets may not use besides the built-in list (e.g. 203.0.113.0/24), comma-separated',
    default: [],
    parse: cidrList,
  },
  {
    key: 'calloutConcurrency',
    env: 'CALLOUT_CONCURRENCY',
    flag: 'callout-concurrency',
    help: 'async rule callouts sent at once; the others wait their turn',
    default: 16,
    parse: int(1, 1000),
  },
  {
    key: 'calloutQueue',
    env: 'CALLOUT_QUEUE',
    flag: 'callout-queue',
    help: 'async rule callouts waiting (for their delay or a turn) on the whole server; one more is not sent',
    default: 1000,
    parse: int(0, 1_000_000),
  },
  {
    key: 'calloutQueuePerEndpoint',
    env: 'CALLOUT_QUEUE_PER_ENDPOINT',
    flag: 'callout-queue-per-endpoint',
    help: "async rule callouts waiting for one endpoint; one more of that endpoint's is not sent",
    default: 100,
    parse: int(0, 1_000_000),
  },
  {
    key: 'calloutMaxDepth',
    env: 'CALLOUT_MAX_DEPTH',
    flag: 'callout-max-depth',
    help: 'callouts of this instance a request may have come through before the next is refused as a loop (508)',
    default: 3,
    parse: int(1, 7),
  },
  {
    key: 'faultTimeoutMax',
    env: 'FAULT_TIMEOUT_MAX',
    flag: 'fault-timeout-max',
    help: 'ms a `timeout` fault holds its connection, sending nothing, before the server closes it',
    default: 60_000,
    parse: int(1, 3_600_000),
  },
  {
    key: 'historyRetentionDays',
    env: 'HISTORY_RETENTION_DAYS',
    flag: 'history-retention-days',
    help: 'days of request history kept',
    default: 10,
    parse: int(1, 3650),
  },
  {
    key: 'historyMaxEntries',
    env: 'HISTORY_MAX_ENTRIES',
    flag: 'history-max-entries',
    help: 'history entries kept per endpoint',
    default: 100_000,
    parse: int(1, 100_000_000),
  },
  {
    key: 'historyExportMax',
    env: 'HISTORY_EXPORT_MAX',
    flag: 'history-export-max',
    help: 'most entries one history export (GET …/requests?format=har|ndjson) writes',
    default: HISTORY_EXPORT_MAX_DEFAULT,
    parse: int(1, HISTORY_EXPORT_CEILING),
  },
  {
    key: 'historyMaxBytes',
    env: 'HISTORY_MAX_BYTES',
    flag: 'history-max-bytes',
    help: 'bytes of history kept per endpoint (bodies, headers, files); the oldest entries go past it',
    default: 256 * MB,
    parse: int(MB, 2 ** 50),
  },
  {
    key: 'historyQueueEntries',
    env: 'HISTORY_QUEUE_ENTRIES',
    flag: 'history-queue-entries',
    help: 'history entries waiting to be written; past it the oldest are dropped and counted',
    default: 100_000,
    parse: int(100, 10_000_000),
  },
  {
    key: 'historyQueueBytes',
    env: 'HISTORY_QUEUE_BYTES',
    flag: 'history-queue-bytes',
    help: 'bytes of history waiting to be written; past it the oldest entries are dropped and counted',
    default: 64 * MB,
    parse: int(MB, 2 ** 40),
  },
  {
    key: 'storeBusyTimeout',
    env: 'STORE_BUSY_TIMEOUT',
    flag: 'store-busy-timeout',
    help: 'SQLite: ms a query waits (without blocking other requests) for a lock held elsewhere before 503 store_unavailable',
    default: 1000,
    parse: int(0, 10_000),
  },
  {
    key: 'totpRetentionDays',
    env: 'TOTP_RETENTION_DAYS',
    flag: 'totp-retention-days',
    help: 'days an unused TOTP secret is kept',
    default: 90,
    parse: int(1, 3650),
  },
  {
    key: 'tunnelTimeout',
    env: 'TUNNEL_TIMEOUT',
    flag: 'tunnel-timeout',
    help: 'ms a tunnelled local service has to start answering before 504',
    default: 60_000,
    parse: int(100, 3_600_000),
  },
  {
    key: 'tunnelMaxConcurrent',
    env: 'TUNNEL_MAX_CONCURRENT',
    flag: 'tunnel-max-concurrent',
    help: 'requests one tunnel client answers at once (more go to another client, else 503)',
    default: 100,
    parse: int(1, 10_000),
  },
  {
    key: 'tunnelMaxClients',
    env: 'TUNNEL_MAX_CLIENTS',
    flag: 'tunnel-max-clients',
    help: 'tunnel clients connected to one endpoint at once (one more is refused with 409)',
    default: 10,
    parse: int(1, 1000),
  },
  {
    key: 'tunnelPingInterval',
    env: 'TUNNEL_PING_INTERVAL',
    flag: 'tunnel-ping-interval',
    help: 'ms between pings to tunnel clients; one that misses a pong is dropped',
    default: 15_000,
    parse: int(100, 600_000),
  },
  {
    key: 'stateMaxItems',
    env: 'STATE_MAX_ITEMS',
    flag: 'state-max-items',
    help: 'state items (counters, strings, lists) one endpoint holds',
    default: 1000,
    parse: int(1, 1_000_000),
  },
  {
    key: 'stateMaxValue',
    env: 'STATE_MAX_VALUE',
    flag: 'state-max-value',
    help: "bytes of one state item's value as JSON (a whole list counts as one value)",
    default: 64 * 1024,
    parse: int(16, 16 * MB),
  },
  {
    key: 'stateMaxList',
    env: 'STATE_MAX_LIST',
    flag: 'state-max-list',
    help: 'values one state list holds',
    default: 1000,
    parse: int(1, 1_000_000),
  },
  {
    key: 'plansFile',
    env: 'PLANS_FILE',
    flag: 'plans-file',
    help: 'JSON or YAML file defining plans',
    default: undefined,
    parse: file,
  },
  {
    key: 'defaultPlan',
    env: 'DEFAULT_PLAN',
    flag: 'default-plan',
    help: 'plan given to new endpoints',
    default: 'unlimited',
    parse: str,
  },
  {
    key: 'configFile',
    env: 'MOCKINGBIRD_CONFIG',
    flag: 'config',
    help: 'YAML or JSON file of endpoints to load at start (mocks as code)',
    default: undefined,
    parse: file,
  },
  // Files the operator names are read whole at start: a device (/dev/zero) read until the kernel
  // killed the process at 23.6 GB (issue 30). The blobs and OpenAPI documents a mocks-as-code file
  // names have BLOB_LIMIT and OAS_SPEC_LIMIT instead.
  {
    key: 'configFileLimit',
    env: 'CONFIG_FILE_LIMIT',
    flag: 'config-file-limit',
    help: 'largest mocks-as-code file, PLANS_FILE, TLS_CERT or TLS_KEY read, in bytes (regular files only)',
    default: CONFIG_FILE_LIMIT_DEFAULT,
    parse: int(1024, 1024 * MB),
  },
];

/**
 * Builds the configuration from flags (already parsed into a name→value map, names as in SETTINGS.flag)
 * and the environment. Throws ConfigError on the first bad value.
 */
export function loadConfig(
  flags: Record<string, string | undefined> = {},
  env: NodeJS.ProcessEnv = process.env,
): Config {
  const out: Record<string, unknown> = {};
  for (const s of SETTINGS) {
    const fromFlag = flags[s.flag];
    const fromEnv = env[s.env];
    if (fromFlag !== undefined) out[s.key] = s.parse(fromFlag, `--${s.flag}`);
    else if (fromEnv !== undefined) out[s.key] = s.parse(fromEnv, s.env);
    else out[s.key] = s.default;
  }
  const config = out as unknown as Config;
  if ((config.tlsCert === undefined) !== (config.tlsKey === undefined))
    throw new ConfigError('TLS_CERT and TLS_KEY must be given together');
  // Node cuts a request at whichever timeout comes first: headers allowed longer than the whole
  // request would be a bound that never applies, so the pair is refused rather than silently clipped.
  if (config.headersTimeout > config.requestTimeout)
    throw new ConfigError(
      `HEADERS_TIMEOUT (${config.headersTimeout} ms) must not be above REQUEST_TIMEOUT (${config.requestTimeout} ms)`,
    );
  config.dataDir = resolve(config.dataDir);
  return config;
}

/** A configuration for tests and embedding: defaults, then the given overrides. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({}, {});
  return { ...base, logLevel: 'silent', ...overrides };
}
