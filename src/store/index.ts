/** Public surface of the storage layer. */
export type * from './types.js';
export { openStore, openSqliteStore, openPostgresStore } from './open.js';
export { KyselyStore, decodeCursor } from './kysely-store.js';
export { HistoryWriter } from './history-writer.js';
export { pruneHistoryOnce, startHistoryRetention } from './retention.js';
