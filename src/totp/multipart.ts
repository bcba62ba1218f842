/** The TOTP API's QR-code upload: one image in the multipart field `qrcode` (http/file-upload.ts). */
import { fileUploadParser, FileUpload } from '../http/index.js';

/** Largest QR image accepted, in bytes (a full-resolution phone screenshot is 1–5 MB). */
export const QR_UPLOAD_LIMIT = 10 * 1024 * 1024;

export const parseQrMultipart = fileUploadParser({
  field: 'qrcode',
  limit: QR_UPLOAD_LIMIT,
  noun: 'image',
});

/** The parsed body of a QR upload. */
export { FileUpload as QrUpload };
