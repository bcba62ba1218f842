/** The services OpenAPI mocking draws on (serving a spec, the upload job), typed from the folders below it. */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { EndpointCache } from '../endpoint/index.js';
import type { Store } from '../store/index.js';

export interface OasDeps {
  config: Config;
  store: Store;
  log: FastifyBaseLogger;
  /** The cached endpoints, read by the upload job to warm the compiled spec. */
  endpoints: Pick<EndpointCache, 'get'>;
  /** The clock, injectable for tests. */
  now: () => number;
}
