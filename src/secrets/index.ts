/** Public surface of encryption at rest: the one box that seals secrets kept in the store. */
export { SecretBox, KEY_FILE } from './secret-box.js';
