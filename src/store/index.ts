/** Public surface of the storage layer. */
export type * from './types.js';
export { openStore, openSqliteStore, openPostgresStore } from './open.js';
export { KyselyStore } from './kysely-store.js';
export { decodeCursor } from './history-table.js';
export { HistoryWriter } from './history-writer.js';
export {
  applyHistoryRetention,
  startHistoryRetention,
  type HistoryRetentionOptions,
  type RetentionPolicy,
} from './retention.js';
export { startHistoryPurge, type HistoryPurge } from './purge.js';
export { isStoreFull, isStoreUnavailable } from './unavailable.js';
export type { HistoryWriterStats } from './history-writer.js';
export { sqliteFile } from './open.js';
export { watchDataFile } from './data-file-watch.js';
