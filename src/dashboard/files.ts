/**
 * The built dashboard's files (`npm run build` writes them to dist/web/), read once at start into a
 * map from URL path to bytes. Only names found at start are ever served, so no request path can
 * reach another file (no directory traversal, no symlink following at request time).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface StaticFile {
  body: Buffer;
  type: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** The folders served, each flat: `assets/` holds Vite's hashed files, `api-docs/` the API reference's. */
export const SERVED_DIRS = ['assets', 'api-docs'] as const;
/** More files than a build makes means the folder is not ours: refuse to load it. */
const MAX_FILES = 500;

/**
 * The built app's folder: dist/web next to the compiled server (dist/dashboard/ → dist/web), or,
 * when running from the TypeScript sources (src/dashboard/ → dist/web), the build's output.
 */
export function defaultDashboardDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const compiled = join(here, '..', 'web');
  return existsSync(join(compiled, 'index.html')) ? compiled : join(here, '..', '..', 'dist', 'web');
}

export interface DashboardFiles {
  index: Buffer | undefined;
  /** `/assets/index-3f2a.js` → its bytes and type. */
  files: Map<string, StaticFile>;
}

/** Reads `index.html` and the flat served folders of `dir`; a missing folder gives an empty set. */
export function loadDashboardFiles(dir: string): DashboardFiles {
  const files = new Map<string, StaticFile>();
  const indexPath = join(dir, 'index.html');
  const index = existsSync(indexPath) ? readFileSync(indexPath) : undefined;
  for (const sub of SERVED_DIRS) {
    const folder = join(dir, sub);
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const type = TYPES[extname(name).toLowerCase()];
      if (!type || !statSync(path).isFile()) continue;
      if (files.size >= MAX_FILES)
        throw new Error(`${dir} holds more than ${MAX_FILES} files: not a dashboard build`);
      files.set(`/${sub}/${name}`, { body: readFileSync(path), type });
    }
  }
  return { index, files };
}
