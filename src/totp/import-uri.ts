/**
 * Reading the URIs that authenticator setups carry (in a QR code or pasted as `uri`):
 * `otpauth://totp/<label>?secret=…` (the Key Uri Format) and Google Authenticator's export
 * `otpauth-migration://offline?data=<base64 protobuf>`. Pure: input text in, accounts out, or an
 * AppError whose message never repeats a secret.
 */
import protobuf from 'protobufjs';
import { AppError } from '../errors.js';
import {
  decodeBase32Secret,
  DIGITS_DEFAULT,
  DIGITS_MAX,
  DIGITS_MIN,
  parseAlgorithm,
  PERIOD_DEFAULT,
  PERIOD_MAX,
  PERIOD_MIN,
  SECRET_MAX_BYTES,
  type Algorithm,
  type TotpParams,
} from './codes.js';

/** Longest URI accepted, in characters (a full Google export QR holds about 2 KB). */
export const URI_MAX_LENGTH = 8192;
/** Most accounts registered from one migration payload. */
export const MIGRATION_MAX_ACCOUNTS = 100;

export interface ImportedAccount extends TotpParams {
  issuer: string | null;
  /** The account name of the label (`alice@example.com` in `ACME:alice@example.com`). */
  name: string;
}

export type ParsedImport =
  { kind: 'single'; account: ImportedAccount } | { kind: 'migration'; accounts: ImportedAccount[] };

// The MigrationPayload of Google Authenticator's "Transfer accounts" export.
const MIGRATION_SCHEMA = `
syntax = "proto3";
message MigrationPayload {
  enum Algorithm { ALGORITHM_UNSPECIFIED = 0; ALGORITHM_SHA1 = 1; ALGORITHM_SHA256 = 2; ALGORITHM_SHA512 = 3; ALGORITHM_MD5 = 4; }
  enum DigitCount { DIGIT_COUNT_UNSPECIFIED = 0; DIGIT_COUNT_SIX = 1; DIGIT_COUNT_EIGHT = 2; }
  enum OtpType { OTP_TYPE_UNSPECIFIED = 0; OTP_TYPE_HOTP = 1; OTP_TYPE_TOTP = 2; }
  message OtpParameters {
    bytes secret = 1;
    string name = 2;
    string issuer = 3;
    Algorithm algorithm = 4;
    DigitCount digits = 5;
    OtpType type = 6;
    int64 counter = 7;
  }
  repeated OtpParameters otp_parameters = 1;
  int32 version = 2;
  int32 batch_size = 3;
  int32 batch_index = 4;
  int32 batch_id = 5;
}`;

/** The protobuf type, exported so that tests can build export payloads with the same schema. */
export const MigrationPayload = protobuf
  .parse(MIGRATION_SCHEMA, { keepCase: false })
  .root.lookupType('MigrationPayload');

interface MigrationOtp {
  secret: Uint8Array;
  name: string;
  issuer: string;
  algorithm: number;
  digits: number;
  type: number;
}

const MIGRATION_ALGORITHMS: Record<number, Algorithm | undefined> = {
  0: 'SHA1',
  1: 'SHA1',
  2: 'SHA256',
  3: 'SHA512',
};
const MIGRATION_DIGITS: Record<number, number | undefined> = { 0: 6, 1: 6, 2: 8 };

function invalid(path: string, message: string): AppError {
  return new AppError('validation_error', message, { details: [{ path, message }] });
}

/**
 * Parses an `otpauth://totp/…` or `otpauth-migration://offline?data=…` URI. `path` is the JSON
 * pointer the errors are reported under (`/uri`, or `/qrcode` for an uploaded image).
 * Throws AppError `validation_error` with a sentence saying what is wrong.
 */
export function parseImportUri(text: string, path: string): ParsedImport {
  if (text.length > URI_MAX_LENGTH)
    throw invalid(path, `The URI is longer than ${URI_MAX_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw invalid(path, 'The URI is not valid: expected otpauth://totp/<label>?secret=<base32>.');
  }
  const scheme = url.protocol.toLowerCase();
  if (scheme === 'otpauth-migration:') return { kind: 'migration', accounts: parseMigration(url, path) };
  if (scheme !== 'otpauth:')
    throw invalid(path, `Expected an otpauth:// URI, got a ${scheme.replace(/:$/, '')}: URI.`);
  const type = url.hostname.toLowerCase();
  if (type === 'hotp')
    throw invalid(
      path,
      'HOTP (counter-based) codes are not supported: only time-based otpauth://totp/ URIs can be registered.',
    );
  if (type !== 'totp') throw invalid(path, `Unknown OTP type "${type}": expected otpauth://totp/.`);
  return { kind: 'single', account: parseTotpUri(url, path) };
}

function parseTotpUri(url: URL, path: string): ImportedAccount {
  const q = url.searchParams;
  const rawSecret = q.get('secret');
  if (rawSecret === null) throw invalid(path, 'The URI has no secret parameter.');
  const secret = decodeBase32Secret(rawSecret);
  if (!secret.ok) throw invalid(path, secret.message);

  const rawAlgorithm = q.get('algorithm');
  const algorithm = rawAlgorithm === null ? 'SHA1' : parseAlgorithm(rawAlgorithm);
  if (!algorithm) throw invalid(path, 'The URI algorithm must be SHA1, SHA256 or SHA512.');
  const digits = intParam(q.get('digits'), DIGITS_DEFAULT);
  if (!(digits >= DIGITS_MIN && digits <= DIGITS_MAX))
    throw invalid(path, `The URI digits must be a whole number from ${DIGITS_MIN} to ${DIGITS_MAX}.`);
  const period = intParam(q.get('period'), PERIOD_DEFAULT);
  if (!(period >= PERIOD_MIN && period <= PERIOD_MAX))
    throw invalid(
      path,
      `The URI period must be a whole number of seconds from ${PERIOD_MIN} to ${PERIOD_MAX}.`,
    );

  // The label is "Issuer:account" or "account"; the issuer parameter wins over the prefix.
  let label: string;
  try {
    label = decodeURIComponent(url.pathname.replace(/^\//, ''));
  } catch {
    throw invalid(path, 'The URI label is not valid percent-encoding.');
  }
  const colon = label.indexOf(':');
  const prefix = colon === -1 ? '' : label.slice(0, colon).trim();
  const name = (colon === -1 ? label : label.slice(colon + 1)).trim();
  const issuer = q.get('issuer')?.trim() || prefix || null;
  return { secret: secret.bytes, algorithm, digits, period, issuer, name };
}

/** A whole decimal number, the default when absent, NaN when malformed. */
function intParam(raw: string | null, dflt: number): number {
  if (raw === null) return dflt;
  return /^\d{1,4}$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
}

function parseMigration(url: URL, path: string): ImportedAccount[] {
  // A bare "+" of standard base64 reads as a space in a query string: put it back.
  const data = url.searchParams.get('data')?.replace(/ /g, '+');
  if (!data) throw invalid(path, 'The otpauth-migration URI has no data parameter.');
  if (!/^[A-Za-z0-9+/_-]+=*$/.test(data))
    throw invalid(path, 'The otpauth-migration data is not valid base64.');
  let otps: MigrationOtp[];
  try {
    const msg = MigrationPayload.decode(Buffer.from(data, 'base64'));
    const obj = MigrationPayload.toObject(msg, { defaults: true, longs: String, enums: Number }) as {
      otpParameters: MigrationOtp[];
    };
    otps = obj.otpParameters;
  } catch {
    throw invalid(path, 'The otpauth-migration data is not a valid export payload.');
  }
  if (otps.length > MIGRATION_MAX_ACCOUNTS)
    throw invalid(path, `The export holds more than ${MIGRATION_MAX_ACCOUNTS} accounts.`);

  // HOTP and MD5 accounts cannot be served by a TOTP generator; they are left out, not guessed at.
  const accounts: ImportedAccount[] = [];
  for (const o of otps) {
    const algorithm = MIGRATION_ALGORITHMS[o.algorithm];
    const digits = MIGRATION_DIGITS[o.digits];
    if (o.type === 1 || !algorithm || !digits) continue;
    if (o.secret.length === 0 || o.secret.length > SECRET_MAX_BYTES) continue;
    accounts.push({
      secret: Uint8Array.from(o.secret),
      algorithm,
      digits,
      period: PERIOD_DEFAULT,
      issuer: o.issuer.trim() || null,
      name: o.name,
    });
  }
  if (accounts.length === 0)
    throw invalid(path, 'The export holds no time-based (TOTP) account with SHA1, SHA256 or SHA512.');
  return accounts;
}
