/** Shared helpers of the TOTP tests: a started app with a generous limit, and JSON requests. */
import { startApp, type TestApp } from '../helpers/app.js';
import type { Config } from '../../src/config.js';
import type { BuildOptions } from '../../src/server.js';

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ISO_MS_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** An app whose TOTP limit does not get in the way (tests about the limit set their own). */
export function startTotpApp(
  overrides: Partial<Config> = {},
  opts: BuildOptions & { listen?: boolean } = {},
): Promise<TestApp> {
  return startApp({ totpRateLimit: 1000, ...overrides }, opts);
}

/** POST /2FA/TOTP/ with a JSON body; returns status, parsed body and headers. */
export async function register(app: TestApp, body: unknown, url = '/2FA/TOTP/') {
  const res = await app.inject({ method: 'POST', url, payload: body as object });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

/** GET /2FA/TOTP/<id><suffix>. */
export async function current(app: TestApp, id: string, suffix = '') {
  const res = await app.inject({ method: 'GET', url: `/2FA/TOTP/${id}${suffix}` });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

/** RFC 4648 base32 of `bytes`, no padding. */
export function base32(bytes: Uint8Array): string {
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += A[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += A[(value << (5 - bits)) & 31];
  return out;
}
