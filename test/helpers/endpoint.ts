/** Requests to an endpoint through the one listener (App.inject), and an app that stops with its test. */
import type { TestContext } from 'node:test';
import type { Config } from '../../src/config.js';
import type { BuildOptions } from '../../src/server.js';
import { startApp, type TestApp } from './app.js';

export interface EndpointRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  payload?: string | Buffer;
}

/** `method` (GET) `/e/<ep><path>` injected into `app`'s one listener, as production's requests arrive. */
export function endpointRequest(app: TestApp, ep: string, path: string, opts: EndpointRequestOptions = {}) {
  return app.inject({
    method: (opts.method ?? 'GET') as 'GET',
    url: `/e/${ep}${path}`,
    headers: opts.headers ?? {},
    ...(opts.payload !== undefined ? { payload: opts.payload } : {}),
  });
}

/** An app (startApp's) stopped when the test `t` ends. */
export async function useApp(
  t: Pick<TestContext, 'after'>,
  overrides: Partial<Config> = {},
  opts: BuildOptions & { listen?: boolean } = {},
): Promise<TestApp> {
  const app = await startApp(overrides, opts);
  t.after(() => app.stop());
  return app;
}
