/** Test harness: an app on a temporary SQLite database, in-process (inject) or on a real port 0 socket. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testConfig, type Config } from '../../src/config.js';
import { buildApp, type App, type BuildOptions } from '../../src/server.js';

export const ADMIN_KEY = 'mb_test_admin_key_0123456789abcdefghijklmnopqrstuv';

/** A fake dashboard build (index.html and a few assets) that test apps serve unless told otherwise. */
export const DASHBOARD_FIXTURE = fileURLToPath(new URL('../dashboard/fixture', import.meta.url));

export interface TestApp extends App {
  dataDir: string;
  /** Base URL when started with `listen: true`. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startApp(
  overrides: Partial<Config> = {},
  opts: BuildOptions & { listen?: boolean; keepDir?: boolean } = {},
): Promise<TestApp> {
  const dataDir = overrides.dataDir ?? mkdtempSync(join(tmpdir(), 'mockingbird-test-'));
  // gRPC over h2c is on by default (GRPC_CLEARTEXT): the test apps serve it as an instance does, and
  // the gRPC tests call over it; a test turns it off with `grpcH2c: false`.
  const config = testConfig({ dataDir, apiKey: ADMIN_KEY, ...overrides });
  // A small stand-in for the built dashboard, so that tests do not depend on `npm run build`.
  const app = await buildApp(config, { dashboardDir: DASHBOARD_FIXTURE, ...opts });
  let url = '';
  let port = 0;
  if (opts.listen) {
    await app.fastify.listen({ port: 0, host: '127.0.0.1' });
    const addr = app.fastify.server.address();
    port = typeof addr === 'object' && addr ? addr.port : 0;
    url = `http://127.0.0.1:${port}`;
  } else {
    await app.fastify.ready();
  }
  return {
    ...app,
    dataDir,
    url,
    port,
    async stop() {
      await app.close();
      if (!opts.keepDir && overrides.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The setting a test opts in with when its proxy or callout targets are local servers (127.0.0.1 and
 * port 0): the guard denies loopback by default (SECURITY.md).
 */
export const ALLOW_LOOPBACK: Pick<Config, 'proxyAllow'> = { proxyAllow: ['127.0.0.0/8', '::1/128'] };

/** Authorization header for the test admin key. */
export const adminAuth = { authorization: `Bearer ${ADMIN_KEY}` };
