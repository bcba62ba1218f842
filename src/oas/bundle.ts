/**
 * A zip of OpenAPI files that refer to each other (`$ref: ./schemas/pet.yaml#/Pet`) bundled into one
 * document (SPEC §7 "Documents as users have them"). Runs in the validation worker, before the
 * document is validated: the bundled document is the one stored.
 *
 * Untrusted input, so bounded before anything is inflated: at most OAS_ZIP_ENTRIES entries, their
 * declared sizes together at most the upload limit (fflate inflates each into a buffer of its declared
 * size and no more, so a lying header cannot grow it), no entry inflating more than OAS_ZIP_RATIO
 * times its compressed size (zip bombs), and no entry name that leaves the zip (`../`, `/…`, `C:`).
 * References to URLs, to files outside the zip or not in it are refused, naming the reference; none
 * is ever fetched or read from disk.
 *
 * Bundling: the root's own references stay as they are; another file's target is copied into the
 * document where it is first referred to, and every later reference to it (a cycle included) points
 * there (`#/components/schemas/Pet/properties/owner`), so each target is copied once.
 */
import { unzipSync } from 'fflate';
import { readObject } from './document.js';
import { isObject, resolvePointer, type JsonObject } from './refs.js';

/** Entries a zip may hold (directories included). */
export const OAS_ZIP_ENTRIES = 500;
/** Most an entry may inflate, as a multiple of its compressed size (entries over 64 KiB inflated). */
export const OAS_ZIP_RATIO = 100;
/** Entries smaller than this inflated are not held to the ratio (tiny files compress very well). */
const RATIO_FREE_BYTES = 64 * 1024;
/** Most `$ref`s of other files followed in one bundle. */
const MAX_EXTERNAL_REFS = 50_000;

/** The four bytes every zip starts with (a local file header). */
export function isZip(data: Uint8Array): boolean {
  return data.length >= 4 && data[0] === 0x50 && data[1] === 0x4b && data[2] === 0x03 && data[3] === 0x04;
}

/** A zip that cannot be bundled: the message, and where (an entry name or a JSON pointer). */
export class BundleError extends Error {
  constructor(
    message: string,
    readonly path = '/',
    readonly received?: string,
  ) {
    super(message);
  }
}

const DOC_FILE = /\.(ya?ml|json)$/i;
const ROOT_NAMES = [
  'openapi.yaml',
  'openapi.yml',
  'openapi.json',
  'swagger.yaml',
  'swagger.yml',
  'swagger.json',
];

/** `a/./b/../c` → `a/c`; undefined when it climbs out of the zip. */
function normalize(path: string): string | undefined {
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(seg);
  }
  return out.join('/');
}

/** The zip's document files (name → text), within the bounds above; BundleError otherwise. */
function entriesOf(zip: Uint8Array, maxBytes: number): Map<string, string> {
  let count = 0;
  let total = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip, {
      filter(file) {
        if (++count > OAS_ZIP_ENTRIES)
          throw new BundleError(`The zip has more than ${OAS_ZIP_ENTRIES} entries.`);
        const name = file.name;
        if (
          name.includes('\\') ||
          name.startsWith('/') ||
          /^[a-z]:/i.test(name) ||
          normalize(name) === undefined
        )
          throw new BundleError('A zip entry names a path outside the zip.', '/', JSON.stringify(name));
        if (name.endsWith('/') || !DOC_FILE.test(name)) return false;
        total += file.originalSize;
        if (total > maxBytes)
          throw new BundleError(`The zip's files are larger than ${maxBytes} bytes uncompressed.`);
        if (
          file.originalSize > RATIO_FREE_BYTES &&
          file.originalSize > OAS_ZIP_RATIO * Math.max(1, file.size)
        )
          throw new BundleError(
            `A zip entry inflates more than ${OAS_ZIP_RATIO} times its size.`,
            '/',
            JSON.stringify(name),
          );
        return true;
      },
    });
  } catch (err) {
    if (err instanceof BundleError) throw err;
    throw new BundleError(`The zip cannot be read: ${(err as Error).message}`);
  }
  const out = new Map<string, string>();
  for (const [name, bytes] of Object.entries(files))
    out.set(normalize(name)!, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  return out;
}

/** The root: openapi|swagger.(yaml|yml|json) at the top, else the only file that is an OpenAPI document. */
function rootOf(docs: Map<string, () => JsonObject>): string {
  for (const name of ROOT_NAMES) if (docs.has(name)) return name;
  const roots = [...docs.keys()].filter((n) => {
    const d = docs.get(n)!();
    return typeof d['openapi'] === 'string' || typeof d['swagger'] === 'string';
  });
  if (roots.length === 1) return roots[0]!;
  throw new BundleError(
    roots.length === 0
      ? 'The zip holds no OpenAPI document (openapi.yaml or swagger.yaml at its top, or a file with `openapi` or `swagger`).'
      : `The zip holds several OpenAPI documents (${roots.slice(0, 5).join(', ')}); name the root openapi.yaml.`,
  );
}

const escapeToken = (k: string): string => k.replace(/~/g, '~0').replace(/\//g, '~1');
/** A JSON pointer as a `$ref` fragment (percent-encoded, as resolvePointer decodes it). */
const fragment = (pointer: string): string => pointer.split('/').map(encodeURIComponent).join('/');

/**
 * The zip's files bundled into one document object, its root found as above; BundleError for a zip
 * past the bounds, without a root, with a file that does not parse, or a reference that leaves it.
 */
export function bundleZip(zip: Uint8Array, maxBytes: number): JsonObject {
  const texts = entriesOf(zip, maxBytes);
  const parsed = new Map<string, JsonObject>();
  const docs = new Map<string, () => JsonObject>();
  for (const name of texts.keys())
    docs.set(name, () => {
      let d = parsed.get(name);
      if (!d) {
        try {
          d = readObject(texts.get(name)!);
        } catch (err) {
          throw new BundleError(`${name}: ${(err as Error).message}`, '/', JSON.stringify(name));
        }
        parsed.set(name, d);
      }
      return d;
    });
  const rootName = rootOf(docs);
  const root = docs.get(rootName)!();
  /** `file#pointer` of a target already copied → where it is in the bundle. */
  const placed = new Map<string, string>();
  let followed = 0;

  /** Copies `v` (found in `file`) to `at` in the bundle, its references rewritten. */
  const copy = (v: unknown, file: string, at: string): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => copy(x, file, `${at}/${i}`));
    if (!isObject(v)) return v;
    const ref = v['$ref'];
    if (typeof ref === 'string') {
      const target = targetOf(ref, file, at);
      if (target.file === rootName) return { ...v, $ref: `#${target.pointer}` };
      const key = `${target.file}#${target.pointer}`;
      const seen = placed.get(key);
      if (seen !== undefined) return { ...v, $ref: `#${fragment(seen)}` };
      if (++followed > MAX_EXTERNAL_REFS)
        throw new BundleError(`The zip's files refer to each other more than ${MAX_EXTERNAL_REFS} times.`);
      const value = resolvePointer(docs.get(target.file)!(), `#${target.pointer}`);
      if (value === undefined)
        throw new BundleError(
          'A reference points at nothing in its file.',
          `${at}/$ref`,
          JSON.stringify(ref),
        );
      placed.set(key, at);
      return copy(value, target.file, at);
    }
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(out, k, {
        value: copy(x, file, `${at}/${escapeToken(k)}`),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  };

  /** The file and pointer `ref` (in `file`) names; BundleError when it leaves the zip. */
  const targetOf = (ref: string, file: string, at: string): { file: string; pointer: string } => {
    const hash = ref.indexOf('#');
    const path = hash === -1 ? ref : ref.slice(0, hash);
    const pointer = hash === -1 ? '' : ref.slice(hash + 1);
    if (path === '') return { file, pointer };
    const refused = (why: string): BundleError => new BundleError(why, `${at}/$ref`, JSON.stringify(ref));
    if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//'))
      throw refused('External reference: URLs are never fetched.');
    if (path.startsWith('/')) throw refused('External reference: a file outside the zip.');
    const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : '';
    const name = normalize(dir + path);
    if (name === undefined) throw refused('External reference: a file outside the zip.');
    if (!docs.has(name)) throw refused('External reference: no such file in the zip.');
    return { file: name, pointer };
  };

  return copy(root, rootName, '') as JsonObject;
}
