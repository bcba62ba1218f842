/** The QR search itself (unit level): formats, sizes, transparency, tiny codes, the pixel cap, the time budget. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import QRCode from 'qrcode';
import sharp from 'sharp';
import { AppError } from '../../src/errors.js';
import { QR_MAX_PIXELS, readQrText } from '../../src/totp/qr.js';
import { prng, qrPng } from './qr-fixtures.js';

const URI = 'otpauth://totp/ACME:alice?secret=JBSWY3DPEHPK3PXP&issuer=ACME';

async function assertInvalidImage(image: Buffer, message: RegExp) {
  await assert.rejects(readQrText(image), (err: unknown) => {
    assert.ok(err instanceof AppError);
    assert.equal(err.code, 'validation_error');
    assert.match(err.message, message);
    return true;
  });
}

void test('bytes that are not an image, and image formats other than PNG, JPEG, GIF, WebP, are refused', async () => {
  await assertInvalidImage(Buffer.from('this is not an image'), /PNG, JPEG, GIF or WebP/);
  await assertInvalidImage(Buffer.alloc(1024), /PNG, JPEG, GIF or WebP/);
  const tiff = await sharp(await qrPng(URI))
    .tiff()
    .toBuffer();
  await assertInvalidImage(tiff, /PNG, JPEG, GIF or WebP/);
  const truncated = (await qrPng(URI)).subarray(0, 200);
  await assertInvalidImage(truncated, /could not be decoded/);
});

void test(`a picture over ${QR_MAX_PIXELS} pixels is refused before it is decoded`, async () => {
  const big = await sharp({ create: { width: 10_000, height: 5_001, channels: 3, background: 'white' } })
    .png()
    .toBuffer();
  await assertInvalidImage(big, /too large: 10000×5001 pixels/);
});

void test('a large photo (4000×3000 JPEG) is scaled down and still read', async () => {
  const photo = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#d8d0c0' } })
    .composite([{ input: await qrPng(URI, 600), left: 2500, top: 400 }])
    .jpeg({ quality: 75 })
    .toBuffer();
  assert.equal(await readQrText(photo), URI);
});

void test('a transparent QR code is read on white', async () => {
  const png = await QRCode.toBuffer(URI, { width: 300, color: { dark: '#000000ff', light: '#00000000' } });
  assert.equal(await readQrText(png), URI);
});

void test('a small code with 3-pixel modules in a large flat picture', async () => {
  const small = await QRCode.toBuffer(URI, { scale: 3, margin: 2 });
  const shot = await sharp({ create: { width: 1170, height: 2532, channels: 3, background: '#f2f2f7' } })
    .composite([{ input: small, left: 90, top: 2200 }])
    .png()
    .toBuffer();
  assert.equal(await readQrText(shot), URI);
});

void test('a small code in grain that hides it from the whole-picture pass is found in a tile', async () => {
  // 2-pixel modules in a uniformly grainy picture: jsQR sees finder patterns everywhere in the
  // whole picture, but reads the code in the tile around it.
  const random = prng(3);
  const W = 1170;
  const H = 2532;
  const px = Buffer.alloc(W * H * 3);
  for (let i = 0; i < px.length; i++) px[i] = random(180, 221);
  const long =
    'otpauth://totp/ACME:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=ACME&algorithm=SHA1&digits=6&period=30';
  const code = await QRCode.toBuffer(long, { width: 100, margin: 2 });
  const shot = await sharp(px, { raw: { width: W, height: H, channels: 3 } })
    .composite([{ input: code, left: 535, top: 1519 }])
    .png()
    .toBuffer();
  assert.equal(await readQrText(shot), long);
});

void test('no code gives undefined; an exhausted time budget stops the search', async () => {
  const blank = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#888' } })
    .png()
    .toBuffer();
  assert.equal(await readQrText(blank), undefined);
  assert.equal(await readQrText(await qrPng(URI), -1), undefined);
});
