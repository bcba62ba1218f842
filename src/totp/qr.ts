/**
 * Finding and reading a QR code in an uploaded image (PNG, JPEG, GIF, WebP): sharp decodes it to
 * pixels, jsQR looks for the code. A phone screenshot holds the code as a small part of a large,
 * busy picture, so when the first pass fails a few variants are tried (smoothed, cropped tiles,
 * resized, inverted for dark mode). It runs in a worker thread (qr-worker.ts), never on the thread
 * that answers requests: jsQR over a noisy picture takes seconds of CPU. The pool (qr-pool.ts) bounds
 * its time by terminating the worker.
 */
import sharp, { type Sharp } from 'sharp';
import jsQRModule from 'jsqr';
import { AppError } from '../errors.js';

/** Largest picture decoded, in pixels: a guard against decompression bombs (a 12 MP photo passes). */
export const QR_MAX_PIXELS = 50_000_000;
/** Longest side the search works on; larger pictures are scaled down first. */
const WORK_SIDE = 2400;
const FORMATS = new Set(['png', 'jpeg', 'gif', 'webp']);

// jsqr is CommonJS whose typings declare an ES default export: under NodeNext the import is the
// module object, and the function sits both on it and on its `default`.
const jsQR = ((jsQRModule as unknown as { default?: typeof jsQRModule }).default ??
  jsQRModule) as unknown as (
  data: Uint8ClampedArray,
  width: number,
  height: number,
  options?: { inversionAttempts?: 'dontInvert' | 'onlyInvert' | 'attemptBoth' | 'invertFirst' },
) => { data: string } | null;

interface Grey {
  data: Buffer;
  width: number;
  height: number;
}

type Variant = () => Promise<Grey | undefined>;

/**
 * Returns the text of the first QR code found, or undefined when none could be read. Throws
 * AppError `validation_error` when the bytes are not a PNG, JPEG, GIF or WebP image. Past `budgetMs`
 * no further variant is tried; by default there is no budget, the caller bounds the time (the pool
 * terminates a worker still searching at QR_TIMEOUT, whichever variant it is in).
 */
export async function readQrText(
  image: Buffer,
  budgetMs = Number.POSITIVE_INFINITY,
): Promise<string | undefined> {
  const base = await decodeGrey(image);
  const started = Date.now();
  const raw = (g: Grey) => sharp(g.data, { raw: { width: g.width, height: g.height, channels: 1 } });
  const longest = Math.max(base.width, base.height);
  let smoothed: Promise<Grey> | undefined;
  const smooth: Variant = () => (smoothed ??= toGrey(raw(base).blur(1)));
  // Tiles hold less noise around the code, which finds codes that the whole busy picture hides,
  // and quickly; small tiles are enlarged as well.
  const tileVariants = tiles(base.width, base.height).map((tile): [Variant, boolean] => [
    async () => {
      let img = raw(base).extract(tile);
      if (Math.max(tile.width, tile.height) < 700) img = img.resize(tile.width * 2, tile.height * 2);
      return toGrey(img.blur(0.8));
    },
    false,
  ]);
  const variants: [Variant, boolean][] = [
    // Grain and JPEG noise look like finder patterns to jsQR (and make it slow); a light blur
    // removes them and costs nothing on a clean screenshot.
    [smooth, false],
    ...tileVariants,
    // Modules of one or two pixels do not survive the blur.
    [async () => base, false],
    [
      async () =>
        longest < 1200 ? toGrey(raw(base).resize(longest * 2, longest * 2, { fit: 'inside' })) : undefined,
      false,
    ],
    [
      async () => (longest > 1000 ? toGrey(raw(base).resize(1000, 1000, { fit: 'inside' })) : undefined),
      false,
    ],
  ];
  // Dark-mode apps show light modules on a dark ground: on a dark picture that is tried first.
  if (meanOf(base) < 110) variants.unshift([smooth, true]);
  else variants.push([smooth, true]);
  for (const [make, invert] of variants) {
    if (Date.now() - started > budgetMs) return undefined;
    const g = await make();
    const text = g && scan(g, invert);
    if (text !== undefined) return text;
  }
  return undefined;
}

async function decodeGrey(image: Buffer): Promise<Grey> {
  // Headers only: no pixels are decoded here, so no pixel cap is needed yet.
  const meta = await sharp(image, { limitInputPixels: false })
    .metadata()
    .catch(() => undefined);
  if (meta?.format === undefined || !FORMATS.has(meta.format))
    throw invalidImage(
      'The qrcode file must be a PNG, JPEG, GIF or WebP image.',
      'is not a PNG, JPEG, GIF or WebP image',
    );
  const pixels = (meta.width ?? 0) * (meta.height ?? 0);
  if (pixels > QR_MAX_PIXELS)
    throw invalidImage(
      `The qrcode image is too large: ${meta.width}×${meta.height} pixels, at most ${QR_MAX_PIXELS} are decoded.`,
      `has more than ${QR_MAX_PIXELS} pixels`,
    );
  try {
    return await toGrey(
      sharp(image, { limitInputPixels: QR_MAX_PIXELS })
        .rotate() // EXIF orientation of phone photos
        .flatten({ background: '#ffffff' }) // transparent codes are drawn on white
        .resize(WORK_SIDE, WORK_SIDE, { fit: 'inside', withoutEnlargement: true }),
    );
  } catch {
    throw invalidImage('The qrcode image could not be decoded: the file is damaged.', 'could not be decoded');
  }
}

function invalidImage(message: string, detail: string): AppError {
  return new AppError('validation_error', message, { details: [{ path: '/qrcode', message: detail }] });
}

async function toGrey(img: Sharp): Promise<Grey> {
  const { data, info } = await img.greyscale().raw().toBuffer({ resolveWithObject: true });
  // greyscale() of an image with alpha still yields two channels: keep the first.
  if (info.channels === 1) return { data, width: info.width, height: info.height };
  const out = Buffer.alloc(info.width * info.height);
  for (let i = 0; i < out.length; i++) out[i] = data[i * info.channels]!;
  return { data: out, width: info.width, height: info.height };
}

function meanOf(g: Grey): number {
  let sum = 0;
  for (let i = 0; i < g.data.length; i += 7) sum += g.data[i]!;
  return sum / Math.ceil(g.data.length / 7);
}

function scan(g: Grey, invert: boolean): string | undefined {
  const rgba = new Uint8ClampedArray(g.width * g.height * 4);
  for (let i = 0, j = 0; i < g.data.length; i++, j += 4) {
    const v = g.data[i]!;
    rgba[j] = v;
    rgba[j + 1] = v;
    rgba[j + 2] = v;
    rgba[j + 3] = 255;
  }
  // Inverted here rather than by jsQR, whose 'onlyInvert' mode crashes in 1.4.0.
  if (invert) for (let j = 0; j < rgba.length; j += 4) rgba[j] = rgba[j + 1] = rgba[j + 2] = 255 - rgba[j]!;
  const found = jsQR(rgba, g.width, g.height, { inversionAttempts: 'dontInvert' });
  return found && found.data !== '' ? found.data : undefined;
}

/** A 3×3 grid of half-size tiles, overlapping by half, so that any code smaller than a quarter fits one. */
function tiles(
  width: number,
  height: number,
): { left: number; top: number; width: number; height: number }[] {
  const w = Math.ceil(width / 2);
  const h = Math.ceil(height / 2);
  if (w < 64 || h < 64) return [];
  const out = [];
  for (const fy of [0, 0.5, 1])
    for (const fx of [0, 0.5, 1])
      out.push({
        left: Math.round((width - w) * fx),
        top: Math.round((height - h) * fy),
        width: w,
        height: h,
      });
  return out;
}
