/**
 * The pure part of the TOTP generator: the accepted parameter ranges, base32 secrets, and codes
 * (RFC 6238 over RFC 4226, computed by the `otpauth` library). No I/O here.
 */
import * as OTPAuth from 'otpauth';

export const ALGORITHMS = ['SHA1', 'SHA256', 'SHA512'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

export const DIGITS_MIN = 6;
export const DIGITS_MAX = 10;
export const DIGITS_DEFAULT = 6;
export const PERIOD_MIN = 15;
export const PERIOD_MAX = 300;
export const PERIOD_DEFAULT = 30;
/**
 * Longest accepted secret, in decoded bytes. HMAC hashes longer keys down anyway; the cap only keeps
 * stored rows small (RFC 6238's SHA-512 seed is 64 bytes).
 */
export const SECRET_MAX_BYTES = 256;

/** What a code is computed from. */
export interface TotpParams {
  secret: Uint8Array;
  algorithm: Algorithm;
  digits: number;
  period: number;
}

export interface Code {
  /** The code, leading zeros kept. */
  otp: string;
  /** End of the time step that `otp` belongs to: ISO 8601 UTC with milliseconds. */
  expiresAt: string;
}

const BASE32 = /^[A-Z2-7]+$/;

/** The algorithm name in canonical case, or undefined when it is not one of SHA1, SHA256, SHA512. */
export function parseAlgorithm(raw: string): Algorithm | undefined {
  const up = raw.toUpperCase();
  return (ALGORITHMS as readonly string[]).includes(up) ? (up as Algorithm) : undefined;
}

/**
 * Decodes an RFC 4648 base32 secret: case-insensitive, whitespace anywhere and trailing `=` padding
 * ignored (authenticator setups print secrets in groups, in either case). Returns an error sentence
 * instead of throwing; the sentence never repeats the secret.
 */
export function decodeBase32Secret(
  raw: string,
): { ok: true; bytes: Uint8Array } | { ok: false; message: string } {
  const s = raw.replace(/\s+/g, '').replace(/=+$/, '').toUpperCase();
  if (s === '') return { ok: false, message: 'The secret is empty.' };
  if (!BASE32.test(s))
    return { ok: false, message: 'The secret is not valid base32 (letters A-Z and digits 2-7 only).' };
  const bytes = OTPAuth.Secret.fromBase32(s).bytes;
  if (bytes.length === 0) return { ok: false, message: 'The secret is too short: it holds no whole byte.' };
  if (bytes.length > SECRET_MAX_BYTES)
    return { ok: false, message: `The secret is longer than ${SECRET_MAX_BYTES} bytes.` };
  return { ok: true, bytes };
}

/** True for an integer within [min, max]. */
export function inRange(n: unknown, min: number, max: number): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max;
}

/** The code of the time step containing `at` (epoch milliseconds, not before 1970). */
export function codeAt(p: TotpParams, at: number): Code {
  const secret = new OTPAuth.Secret({ buffer: Uint8Array.from(p.secret).buffer });
  const otp = OTPAuth.TOTP.generate({
    secret,
    algorithm: p.algorithm,
    digits: p.digits,
    period: p.period,
    timestamp: at,
  });
  const counter = OTPAuth.TOTP.counter({ period: p.period, timestamp: at });
  return { otp, expiresAt: new Date((counter + 1) * p.period * 1000).toISOString() };
}
