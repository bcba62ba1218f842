/** The services loading a config file draws on: the endpoint commands' (src/admin/) and a logger. */
import type { FastifyBaseLogger } from 'fastify';
import type { EndpointDeps, SpecDeps } from '../admin/index.js';

export interface ConfigFileDeps extends EndpointDeps, SpecDeps {
  log: FastifyBaseLogger;
}
