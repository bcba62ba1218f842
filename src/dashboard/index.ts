/**
 * The dashboard (a single-page app built from web/ into dist/web/) on the bare domain: `index.html`
 * for `/` and for the app's own client routes, its hashed assets with a year-long cache, and the API
 * reference page's shell (the renderer's files are copied from swagger-ui-dist by the build). Every
 * page carries a Content-Security-Policy without inline scripts or styles: everything user-supplied is
 * rendered by the app as text, and the policy stops an injected script from running anyway.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../errors.js';
import { defaultDashboardDir, loadDashboardFiles } from './files.js';

export { defaultDashboardDir } from './files.js';

/** The app's policy: its own origin only, nothing inline, never framed. */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-cache',
};

/** Paths the app routes itself (the browser may be reloaded on any of them): answered with index.html. */
export const CLIENT_ROUTES = ['/', '/login', '/2fa', '/2fa/', '/endpoints', '/endpoints/*'];

/** The API reference page (GET /api/v2/docs): Swagger UI, served from this origin, reading openapi.json. */
export const API_DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mockingbird API reference</title>
<link rel="stylesheet" href="/api-docs/swagger-ui.css">
<link rel="stylesheet" href="/api-docs/docs.css">
</head>
<body>
<p class="mb-nav"><a href="/">← Dashboard</a> · <a href="/api/v2/openapi.json">openapi.json</a></p>
<div id="swagger-ui"><noscript>The reference needs JavaScript; the document itself is at /api/v2/openapi.json.</noscript></div>
<script src="/api-docs/swagger-ui-bundle.js"></script>
<script src="/api-docs/init.js"></script>
</body>
</html>
`;

/** Headers of the reference page: the renderer sets element styles from script, hence no inline `<style>` either. */
export const API_DOCS_HEADERS = {
  ...PAGE_HEADERS,
  'content-type': 'text/html; charset=utf-8',
};

export interface DashboardOptions {
  /** The built app's folder (default: dist/web). */
  dir?: string;
}

/** Registers the app's routes on the bare domain. The files are read now, once. */
export async function dashboardRoutes(app: FastifyInstance, opts: DashboardOptions = {}): Promise<void> {
  const dir = opts.dir ?? defaultDashboardDir();
  const { index, files } = loadDashboardFiles(dir);

  const sendIndex = async (_request: unknown, reply: FastifyReply) => {
    if (!index)
      return reply
        .code(503)
        .headers({ ...PAGE_HEADERS, 'content-type': 'text/plain; charset=utf-8' })
        .send(`The dashboard is not built (no ${dir}/index.html): run \`npm run build\`, then restart.\n`);
    return reply.headers({ ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8' }).send(index);
  };
  for (const url of CLIENT_ROUTES) app.get(url, sendIndex);

  for (const prefix of ['/assets', '/api-docs']) {
    app.get(`${prefix}/*`, async (request, reply) => {
      const path = request.url.split('?')[0] ?? '';
      const file = files.get(path);
      if (!file) throw new AppError('not_found', `No dashboard file ${path}.`);
      // Vite's file names carry a hash of their content; the reference's files do not.
      const cache = prefix === '/assets' ? 'public, max-age=31536000, immutable' : 'no-cache';
      return reply
        .headers({ ...PAGE_HEADERS, 'content-type': file.type, 'cache-control': cache })
        .send(file.body);
    });
  }
}
