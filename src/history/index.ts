/**
 * Public surface of the request history: the entry built from a request and its answer, the writer
 * that queues and batches entries (with each endpoint's caps), the retention and the purge, and the
 * live `request.created` event, and an entry in HAR 1.2 form (for exports). The rows, the history worker and the SQL are the store's (store/).
 */
export { cut as capturedBody, historyEntry, sensitiveHeaders } from './entry.js';
export { HistoryWriter, type HistoryWriterStats } from './history-writer.js';
export {
  applyHistoryRetention,
  historyRetentionPolicy,
  startHistoryRetention,
  type HistoryRetentionOptions,
  type RetentionPolicy,
} from './retention.js';
export { startHistoryPurge, type HistoryPurge } from './purge.js';
export { startHistoryJobs } from './jobs.js';
export { publishRequestEvents } from './request-events.js';
export {
  capViolations,
  MAX_VIOLATIONS,
  MAX_VIOLATION_MESSAGE,
  MAX_VIOLATION_PATH,
  VIOLATIONS_TRUNCATED,
} from './violations.js';
export { harEntry, harUrl, type HarEntry, type HarOrigin, type HarPair } from './har.js';

// gRPC calls (SPEC §13): the entry of a finished call, and its messages capped as they pass.
export { grpcEntry, GrpcMessageLog, GRPC_HISTORY_MAX_MESSAGES, type GrpcCallSummary } from './grpc-entry.js';
