/** Public surface of the Prometheus metrics (SPEC §8). */
export { createMetrics, type Metrics } from './metrics.js';
