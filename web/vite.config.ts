// Builds the dashboard into dist/web/ (served by src/dashboard/), and copies the API reference's
// renderer (swagger-ui-dist) next to it, so that nothing is fetched from another origin.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
const outDir = resolve(here, '..', 'dist', 'web');

function apiDocsRenderer(): Plugin {
  return {
    name: 'mockingbird-api-docs',
    apply: 'build',
    closeBundle() {
      const from = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
      const to = join(outDir, 'api-docs');
      mkdirSync(to, { recursive: true });
      for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css'])
        copyFileSync(join(from, file), join(to, file));
    },
  };
}

export default defineConfig({
  root: here,
  base: '/',
  plugins: [apiDocsRenderer()],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline script: the module preload polyfill would be one more thing in the entry; browsers we
    // target have modulepreload.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
  },
});
