/** Commands of the `mockingbird` CLI that talk to a server (or, when told, to its database). */
export { keysCommand, KEYS_USAGE, type KeysIo } from './keys.js';
export { importHarCommand, IMPORT_HAR_USAGE, type ImportHarIo } from './import-har.js';
