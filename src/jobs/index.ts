/** Public surface of background jobs: one runner for every periodic task of the server. */
export { startJob, type Job, type JobOptions } from './runner.js';
export { timeSlicer, type Slicer } from './slices.js';
