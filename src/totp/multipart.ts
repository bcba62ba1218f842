/**
 * The multipart/form-data parser of the TOTP API's scope (QR-code upload): streams the body through
 * busboy, keeps the one file of the field `qrcode` (at most QR_UPLOAD_LIMIT bytes), and refuses
 * anything else. Registered only in the TOTP API's encapsulated scope.
 */
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { drainAndClose } from '../http/index.js';

/** Largest QR image accepted, in bytes (a full-resolution phone screenshot is 1–5 MB). */
export const QR_UPLOAD_LIMIT = 10 * 1024 * 1024;
/** Room for the multipart framing around the file when checking a declared Content-Length. */
const FRAMING_ALLOWANCE = 64 * 1024;

/** The parsed body of an upload: the image bytes. */
export class QrUpload {
  constructor(
    readonly data: Buffer,
    readonly fileName: string,
  ) {}
}

type Done = (err: Error | null, body?: unknown) => void;

/**
 * Fastify content-type parser for `multipart/form-data`. Answers 413 `payload_too_large` past the
 * limit and 400 `validation_error` for a missing, repeated or unknown field.
 */
export function parseQrMultipart(request: FastifyRequest, payload: IncomingMessage, done: Done): void {
  const tooLarge = (): AppError =>
    new AppError('payload_too_large', `The qrcode image is larger than ${QR_UPLOAD_LIMIT} bytes.`, {
      headers: CLOSE,
    });
  const declared = Number(request.headers['content-length']);
  if (declared > QR_UPLOAD_LIMIT + FRAMING_ALLOWANCE) {
    drainAndClose(request.raw);
    done(tooLarge());
    return;
  }
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: request.headers,
      // busboy reports 'limit' on reaching fileSize, so one byte more means "over the limit".
      limits: { fileSize: QR_UPLOAD_LIMIT + 1, files: 1, fields: 10, fieldSize: 1024, parts: 20 },
    });
  } catch (err) {
    drainAndClose(request.raw);
    done(invalid(`The multipart body cannot be read: ${(err as Error).message}.`));
    return;
  }

  let settled = false;
  let file: QrUpload | undefined;
  const fail = (err: AppError): void => {
    if (settled) return;
    settled = true;
    payload.unpipe(bb);
    // Let the client finish sending so that it reads the answer, then close the connection.
    drainAndClose(request.raw);
    done(err);
  };

  bb.on('field', (name) =>
    fail(invalid(`Unknown field "${name}": send the image alone, in the field "qrcode".`)),
  );
  bb.on('file', (name, stream, info) => {
    if (name !== 'qrcode') {
      stream.resume();
      fail(invalid(`Unknown file field "${name}": send the image in the field "qrcode".`));
      return;
    }
    const chunks: Buffer[] = [];
    // A cut-off body fails the file stream too; busboy's own 'error' below answers it.
    stream.on('error', () => undefined);
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('limit', () => fail(tooLarge()));
    stream.on('end', () => {
      if (!settled) file = new QrUpload(Buffer.concat(chunks), info.filename ?? '');
    });
  });
  bb.on('filesLimit', () => fail(invalid('Send one image only, in the field "qrcode".')));
  bb.on('fieldsLimit', () => fail(invalid('Too many fields: send the image alone, in the field "qrcode".')));
  bb.on('partsLimit', () => fail(invalid('Too many parts: send the image alone, in the field "qrcode".')));
  bb.on('error', (err: Error) => fail(invalid(`The multipart body cannot be read: ${err.message}.`)));
  bb.on('close', () => {
    if (settled) return;
    settled = true;
    // The body has been read whole here: the connection may stay open.
    if (!file) done(invalid('No image: send it in the multipart field "qrcode".', {}));
    else if (file.data.length === 0) done(invalid('The qrcode file is empty.', {}));
    else done(null, file);
  });
  payload.pipe(bb);
}

const CLOSE = { connection: 'close' };

/** A 400 about the upload; by default it closes the connection, as the body may not have been read. */
function invalid(message: string, headers: Record<string, string> = CLOSE): AppError {
  return new AppError('validation_error', message, { details: [{ path: '/qrcode', message }], headers });
}
