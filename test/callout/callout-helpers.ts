/** An app on a real port with endpoint `shop`, and rules with a callout action. */
import assert from 'node:assert/strict';
import { ALLOW_LOOPBACK, startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import type { Config } from '../../src/config.js';
import type { HistoryEntry } from '../../src/store/index.js';

/** Callout targets are local servers: loopback is allowed (ALLOW_LOOPBACK) unless `overrides` says. */
export async function calloutApp(
  overrides: Partial<Config> = {},
): Promise<TestApp & { endpointUrl: string }> {
  const app = await startApp({ ...ALLOW_LOOPBACK, ...overrides }, { listen: true });
  await createEndpoint(app, 'shop');
  return Object.assign(app, { endpointUrl: `${app.url}/e/shop` });
}

/** Adds a rule on `path` (equals) whose action is `action`. */
export async function calloutRule(
  app: TestApp,
  path: string,
  action: Record<string, unknown>,
): Promise<void> {
  const r = await call(app, 'POST', '/endpoints/shop/rules', {
    conditions: [{ type: 'path', operator: 'equals', value: path }],
    action: { type: 'callout', ...action },
  });
  assert.equal(r.status, 201, r.text);
}

/** The endpoint's history, newest first. */
export async function entries(app: TestApp): Promise<HistoryEntry[]> {
  await app.ctx.history.flush();
  return (await app.ctx.store.listHistory('shop', {}, 100)).data;
}

/** Waits (polling, up to `ms`) until `check` gives a value. */
export async function eventually<T>(check: () => Promise<T | undefined>, ms = 3000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
