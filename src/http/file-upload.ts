/**
 * A multipart/form-data body holding one file in one named field (a TOTP QR screenshot, a rule's
 * response blob): a Fastify content-type parser that streams the body through busboy, keeps the file
 * (at most `limit` bytes) and refuses anything else. 413 `payload_too_large` past the limit, 400
 * `validation_error` for a missing, repeated, empty or unknown field; the connection is closed when the
 * body may not have been read whole.
 */
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { drainAndClose } from './body.js';

/** Room for the multipart framing around the file when checking a declared Content-Length. */
const FRAMING_ALLOWANCE = 64 * 1024;

/** The parsed body of an upload. */
export class FileUpload {
  constructor(
    readonly data: Buffer,
    readonly fileName: string,
    readonly contentType: string,
    /** The text fields sent beside the file (only those the parser allows). */
    readonly fields: Readonly<Record<string, string>> = {},
  ) {}
}

export interface FileUploadOptions {
  /** The form field that carries the file. */
  field: string;
  /** Largest file accepted, in bytes. */
  limit: number;
  /** What the file is, for messages: `image`, `file`. */
  noun: string;
  /** Text fields allowed beside the file (each at most 1 KiB, sent once); any other field is refused. */
  fields?: readonly string[];
}

type Done = (err: Error | null, body?: unknown) => void;

const CLOSE = { connection: 'close' };

export function fileUploadParser(opts: FileUploadOptions) {
  const { field, limit, noun } = opts;
  const allowed = new Set(opts.fields ?? []);
  /** A 400 about the upload; by default it closes the connection, as the body may not have been read. */
  const invalid = (message: string, headers: Record<string, string> = CLOSE): AppError =>
    new AppError('validation_error', message, { details: [{ path: `/${field}`, message }], headers });
  const tooLarge = (): AppError =>
    new AppError('payload_too_large', `The ${field} ${noun} is larger than ${limit} bytes.`, {
      headers: CLOSE,
    });

  return function parse(request: FastifyRequest, payload: IncomingMessage, done: Done): void {
    const declared = Number(request.headers['content-length']);
    if (declared > limit + FRAMING_ALLOWANCE) {
      drainAndClose(request.raw);
      done(tooLarge());
      return;
    }
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: request.headers,
        // busboy reports 'limit' on reaching fileSize, so one byte more means "over the limit".
        limits: { fileSize: limit + 1, files: 1, fields: 10, fieldSize: 1024, parts: 20 },
      });
    } catch (err) {
      drainAndClose(request.raw);
      done(invalid(`The multipart body cannot be read: ${(err as Error).message}.`));
      return;
    }

    let settled = false;
    let file: FileUpload | undefined;
    const fields: Record<string, string> = {};
    const fail = (err: AppError): void => {
      if (settled) return;
      settled = true;
      payload.unpipe(bb);
      // Let the client finish sending so that it reads the answer, then close the connection.
      drainAndClose(request.raw);
      done(err);
    };

    bb.on('field', (name, value, info) => {
      if (!allowed.has(name) || Object.hasOwn(fields, name) || info.valueTruncated) {
        const also = [...allowed].map((f) => `"${f}"`).join(', ');
        fail(
          invalid(
            allowed.has(name)
              ? `The field "${name}" is sent more than once or is too long.`
              : also
                ? `Unknown field "${name}": send the ${noun} in the field "${field}", with ${also} at most.`
                : `Unknown field "${name}": send the ${noun} alone, in the field "${field}".`,
          ),
        );
        return;
      }
      fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      if (name !== field) {
        stream.resume();
        fail(invalid(`Unknown file field "${name}": send the ${noun} in the field "${field}".`));
        return;
      }
      const chunks: Buffer[] = [];
      // A cut-off body fails the file stream too; busboy's own 'error' below answers it.
      stream.on('error', () => undefined);
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => fail(tooLarge()));
      stream.on('end', () => {
        if (!settled)
          file = new FileUpload(Buffer.concat(chunks), info.filename ?? '', info.mimeType ?? '', fields);
      });
    });
    bb.on('filesLimit', () => fail(invalid(`Send one ${noun} only, in the field "${field}".`)));
    bb.on('fieldsLimit', () =>
      fail(invalid(`Too many fields: send the ${noun} alone, in the field "${field}".`)),
    );
    bb.on('partsLimit', () =>
      fail(invalid(`Too many parts: send the ${noun} alone, in the field "${field}".`)),
    );
    bb.on('error', (err: Error) => fail(invalid(`The multipart body cannot be read: ${err.message}.`)));
    bb.on('close', () => {
      if (settled) return;
      settled = true;
      // The body has been read whole here: the connection may stay open.
      if (!file) done(invalid(`No ${noun}: send it in the multipart field "${field}".`, {}));
      else if (file.data.length === 0) done(invalid(`The ${field} file is empty.`, {}));
      else done(null, file);
    });
    payload.pipe(bb);
  };
}
