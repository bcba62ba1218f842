/**
 * Encryption at rest of secrets kept in the store (TOTP secrets, the private keys of endpoints' mTLS
 * CAs): AES-256-GCM (node:crypto), a fresh 96-bit nonce per secret, the record id as additional
 * authenticated data (a ciphertext copied onto another row does not decrypt). The key comes from
 * SECRET_KEY (stretched with scrypt) or, when unset, from a random key file created once in DATA_DIR
 * with mode 0600. The file's name and the scrypt salt keep their first (TOTP) names, so that existing
 * deployments keep decrypting what they stored.
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';

/** Name of the generated key file inside DATA_DIR. */
export const KEY_FILE = 'totp-secret.key';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
// A fixed salt is enough here: it separates this use of SECRET_KEY from any other, and there is
// one key per deployment (no table of many passwords to precompute against).
const SCRYPT_SALT = 'mockingbird/totp-secrets/v1';

export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** Builds the box from config: SECRET_KEY if set, otherwise the key file (created if missing). */
  static async fromConfig(config: Pick<Config, 'secretKey' | 'dataDir'>): Promise<SecretBox> {
    if (config.secretKey !== undefined) return new SecretBox(await deriveKey(config.secretKey));
    return new SecretBox(await loadOrCreateKeyFile(config.dataDir));
  }

  /** Encrypts `plain`, bound to `id`; the result is text safe to store: `v1.<base64url(iv|tag|ciphertext)>`. */
  seal(plain: Uint8Array, id: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(id, 'utf8'));
    const ct = Buffer.concat([cipher.update(plain), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64url')}`;
  }

  /** Decrypts what `seal` produced for the same id. Throws when the key or the id does not match. */
  open(sealed: string, id: string): Buffer {
    const [version, payload] = sealed.split('.');
    if (version !== VERSION || payload === undefined) throw new Error('Unknown encoding of a stored secret.');
    const raw = Buffer.from(payload, 'base64url');
    const iv = raw.subarray(0, IV_BYTES);
    const tag = raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAAD(Buffer.from(id, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  }
}

/** SECRET_KEY may be a passphrase: scrypt makes guessing it from a stolen database expensive. */
function deriveKey(secretKey: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secretKey, SCRYPT_SALT, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

async function loadOrCreateKeyFile(dataDir: string): Promise<Buffer> {
  const file = join(dataDir, KEY_FILE);
  let text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (text === undefined) {
    await mkdir(dataDir, { recursive: true });
    // Written aside, then linked into place: link() fails if the file exists, so two instances
    // starting together agree on the first key, and no reader ever sees a half-written file.
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(tmp, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    try {
      await link(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      await unlink(tmp);
    }
    text = await readFile(file, 'utf8');
  }
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32)
    throw new Error(`${file} does not hold a 32-byte base64 key; remove it or set SECRET_KEY.`);
  return key;
}
