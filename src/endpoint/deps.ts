/** The services the endpoint lifecycle draws on, typed from the folders below it. */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { HistoryWriter } from '../history/index.js';
import type { Metrics } from '../metrics/index.js';

export interface LifecycleDeps {
  config: Config;
  /** Where every answered request is recorded. */
  history: HistoryWriter;
  log: FastifyBaseLogger;
  /** `requests` counts each answered request by behavior, where its history entry is made. */
  metrics: Pick<Metrics, 'requests'>;
  /** The clock, injectable for tests. */
  now: () => number;
}
