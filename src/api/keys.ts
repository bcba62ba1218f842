/**
 * API keys: generation, hashing and lookup. Keys are `mb_` + 43 URL-safe random characters (32 bytes);
 * only their SHA-256 is stored. A key is high-entropy, so a fast hash is the right tool here; lookups
 * go by hash and the final comparison is constant-time.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.js';
import type { ApiKeyRecord, Store } from '../store/index.js';

export function generateKey(): string {
  return 'mb_' + randomBytes(32).toString('base64url');
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Finds the stored record for a presented key, comparing hashes in constant time. */
export async function findKey(store: Store, key: string): Promise<ApiKeyRecord | undefined> {
  const hash = hashKey(key);
  const rec = await store.findApiKeyByHash(hash);
  if (!rec) return undefined;
  const a = Buffer.from(rec.hash, 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b) ? rec : undefined;
}

/** Creates and stores a new key; the clear key is returned once and never kept. */
export async function createKey(
  store: Store,
  endpoint: string | null,
): Promise<{ id: string; key: string; endpoint: string | null }> {
  const key = generateKey();
  const id = randomUUID();
  await store.createApiKey({ id, hash: hashKey(key), endpoint, createdAt: Date.now() });
  return { id, key, endpoint };
}

/** Ids of keys registered from MOCKINGBIRD_API_KEY (the rest were made through the API or the CLI). */
const ENV_KEY_PREFIX = 'env-admin-';

/**
 * Makes sure an admin key exists. With MOCKINGBIRD_API_KEY set, that key is registered (hashed) and
 * any key an earlier MOCKINGBIRD_API_KEY registered is revoked: changing the variable retires the old
 * key (keys made through the API stay). Otherwise, at first start, a key is generated and returned so
 * that the caller prints it once.
 */
export async function ensureAdminKey(
  store: Store,
  configured: string | undefined,
): Promise<string | undefined> {
  if (configured !== undefined) {
    const hash = hashKey(configured);
    const current = ENV_KEY_PREFIX + hash.slice(0, 12);
    for (const k of await store.listApiKeys())
      if (k.id.startsWith(ENV_KEY_PREFIX) && k.id !== current) await store.deleteApiKey(k.id);
    if (!(await store.findApiKeyByHash(hash))) {
      await store.createApiKey({
        id: current,
        hash,
        endpoint: null,
        createdAt: Date.now(),
      });
    }
    return undefined;
  }
  if ((await store.getMeta('admin_key_generated')) !== undefined) return undefined;
  const { key } = await createKey(store, null);
  await store.setMeta('admin_key_generated', new Date().toISOString());
  return key;
}

/** The keys as the API shows them: ids, scopes and creation times, never a key or its hash. */
export async function listKeys(
  store: Store,
): Promise<{ id: string; endpoint: string | null; createdAt: string }[]> {
  return (await store.listApiKeys()).map((k) => ({
    id: k.id,
    endpoint: k.endpoint,
    createdAt: new Date(k.createdAt).toISOString(),
  }));
}

/** Revokes key `id`: not_found when there is none, conflict when it is the last admin key. */
export async function revokeKey(store: Store, id: string): Promise<void> {
  const keys = await store.listApiKeys();
  const key = keys.find((k) => k.id === id);
  if (!key) throw new AppError('not_found', `API key "${id}" does not exist.`);
  if (key.endpoint === null && keys.filter((k) => k.endpoint === null).length === 1)
    throw new AppError('conflict', 'This is the last admin key; create another one before revoking it.');
  if (!(await store.deleteApiKey(id))) throw new AppError('not_found', `API key "${id}" does not exist.`);
}
