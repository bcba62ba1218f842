/** Public surface of the storage layer. */
export type * from './types.js';
export { openStore, openSqliteStore, openPostgresStore } from './open.js';
export { KyselyStore } from './kysely-store.js';
export { decodeCursor } from './history-table.js';
export { entryWeight } from './history-size.js';
export { isStoreFull, isStoreUnavailable, isValueRefused } from './unavailable.js';
export { sqliteFile } from './open.js';
export { DataDirInUse } from './data-dir-lock.js';
export { watchDataFile } from './data-file-watch.js';
