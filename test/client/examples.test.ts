/**
 * The Playwright, Vitest and Jest examples of docs/testing.md, run against a live server: each file
 * under examples/testing/ is imported with its framework's package resolved to a small shim over
 * node:test (test/client/shims/), so the suite needs no runner. The docs show each file verbatim
 * (test/testing/recipes-docs.test.ts); CI also runs them with the real runners
 * (scripts/check-recipes.mjs).
 */
import { after } from 'node:test';
import { register } from 'node:module';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';

const EXAMPLES = [
  'examples/testing/playwright/forecast.spec.ts',
  'examples/testing/vitest/payments.test.ts',
  'examples/testing/jest/inventory.test.mjs',
];

// The examples read the server's address when they are loaded, as they would from a CI's environment.
const app: TestApp = await startApp({}, { listen: true });
process.env.MOCKINGBIRD_URL = app.url;
process.env.MOCKINGBIRD_API_KEY = ADMIN_KEY;
after(async () => app.stop());

register('./shims/loader.mjs', import.meta.url);
// Each example registers its tests and hooks here, as its framework would.
for (const file of EXAMPLES) await import(`../../${file}`);
