/** Images and bodies for the QR-import tests, all made here: qrcode draws the codes, sharp the pictures. */
import QRCode from 'qrcode';
import sharp from 'sharp';
import protobuf from 'protobufjs';

/** A small seeded PRNG (mulberry32): the pictures are the same at every run, so are the results. */
export function prng(seed: number): (min: number, max: number) => number {
  let a = seed >>> 0;
  return (min, max) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const r = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return min + Math.floor(r * (max - min));
  };
}

/** A bare QR code as PNG. */
export function qrPng(text: string, width = 300, dark = false): Promise<Buffer> {
  return QRCode.toBuffer(text, {
    width,
    margin: 2,
    errorCorrectionLevel: 'M',
    ...(dark ? { color: { dark: '#ffffffff', light: '#111111ff' } } : {}),
  });
}

/**
 * A phone-sized "screenshot" (1170×2532): a gradient, random coloured blocks standing in for the UI,
 * grain on every pixel, and the QR code drawn small (qrWidth px) off-centre.
 */
export async function screenshot(
  text: string,
  opts: { qrWidth?: number; format?: 'png' | 'jpeg' | 'webp' | 'gif'; dark?: boolean; seed?: number } = {},
): Promise<Buffer> {
  const randomInt = prng(opts.seed ?? 1);
  const W = 1170;
  const H = 2532;
  const px = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const base = opts.dark ? 25 + (y * 30) / H : 235 - (y * 40) / H;
      const i = (y * W + x) * 3;
      px[i] = px[i + 1] = px[i + 2] = base;
    }
  for (let n = 0; n < 40; n++) {
    const w = randomInt(40, 600);
    const h = randomInt(20, 160);
    const x0 = randomInt(0, W - w);
    const y0 = randomInt(0, H - h);
    const c = [randomInt(0, 256), randomInt(0, 256), randomInt(0, 256)];
    for (let y = y0; y < y0 + h; y++)
      for (let x = x0; x < x0 + w; x++) {
        const i = (y * W + x) * 3;
        px[i] = c[0]!;
        px[i + 1] = c[1]!;
        px[i + 2] = c[2]!;
      }
  }
  for (let i = 0; i < px.length; i++) px[i] = Math.max(0, Math.min(255, px[i]! + randomInt(-20, 21)));
  const qrWidth = opts.qrWidth ?? 240;
  const img = sharp(px, { raw: { width: W, height: H, channels: 3 } }).composite([
    { input: await qrPng(text, qrWidth, opts.dark), left: 700, top: 1500 },
  ]);
  switch (opts.format ?? 'png') {
    case 'jpeg':
      return img.jpeg({ quality: 80 }).toBuffer();
    case 'webp':
      return img.webp({ quality: 85 }).toBuffer();
    case 'gif':
      return img.gif({ effort: 1, colours: 16, dither: 0 }).toBuffer();
    default:
      return img.png().toBuffer();
  }
}

/** A picture without any QR code: a gradient with noise. */
export async function noQr(): Promise<Buffer> {
  const randomInt = prng(7);
  const W = 400;
  const H = 300;
  const px = Buffer.alloc(W * H * 3);
  for (let i = 0; i < px.length; i++) px[i] = ((i / 3) % W) / 2 + randomInt(0, 40);
  return sharp(px, { raw: { width: W, height: H, channels: 3 } })
    .png()
    .toBuffer();
}

export interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer | string;
}

/** A multipart/form-data body and its Content-Type. */
export function multipart(parts: Part[], boundary = '----mockingbird' + Date.now().toString(36)) {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disp =
      `form-data; name="${p.name}"` + (p.filename !== undefined ? `; filename="${p.filename}"` : '');
    const head =
      `--${boundary}\r\nContent-Disposition: ${disp}\r\n` +
      (p.contentType ? `Content-Type: ${p.contentType}\r\n` : '');
    chunks.push(Buffer.from(head + '\r\n'), Buffer.from(p.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The multipart body of one image in the field `qrcode`. */
export function upload(image: Buffer, contentType = 'image/png') {
  return multipart([{ name: 'qrcode', filename: 'qr', contentType, data: image }]);
}

// Google Authenticator's export format, written out here independently of the server's copy.
const root = protobuf.parse(`
syntax = "proto3";
message MigrationPayload {
  message OtpParameters {
    bytes secret = 1; string name = 2; string issuer = 3; int32 algorithm = 4; int32 digits = 5; int32 type = 6; int64 counter = 7;
  }
  repeated OtpParameters otp_parameters = 1;
  int32 version = 2; int32 batch_size = 3; int32 batch_index = 4; int32 batch_id = 5;
}`).root;
const Payload = root.lookupType('MigrationPayload');

export interface MigrationAccount {
  secret: Buffer;
  name: string;
  issuer?: string;
  /** 1 SHA1, 2 SHA256, 3 SHA512, 4 MD5. */
  algorithm?: number;
  /** 1 six, 2 eight. */
  digits?: number;
  /** 1 HOTP, 2 TOTP. */
  type?: number;
}

/** `otpauth-migration://offline?data=…` holding the given accounts. */
export function migrationUri(accounts: MigrationAccount[]): string {
  const msg = Payload.create({
    otpParameters: accounts.map((a) => ({ algorithm: 1, digits: 1, type: 2, issuer: '', ...a })),
    version: 1,
    batchSize: 1,
    batchIndex: 0,
    batchId: 42,
  });
  const data = Buffer.from(Payload.encode(msg).finish()).toString('base64');
  return `otpauth-migration://offline?data=${encodeURIComponent(data)}`;
}
