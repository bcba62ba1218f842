/**
 * The Playwright, Vitest and Jest examples of docs/testing.md, run against a live server: each file
 * under examples/testing/ is imported with its framework's package resolved to a small shim over
 * node:test (test/client/shims/), so the suite needs none of the three installed. The docs show each
 * file verbatim (checked here), so what the docs show is what ran.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { register } from 'node:module';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';

const EXAMPLES = [
  'examples/testing/playwright.example.spec.ts',
  'examples/testing/vitest.example.test.ts',
  'examples/testing/jest.example.test.ts',
];

test('docs/testing.md shows each example file verbatim', () => {
  const doc = readFileSync('docs/testing.md', 'utf8');
  for (const file of EXAMPLES) {
    const marker = `<!-- ${file} -->\n\n\`\`\`ts\n`;
    const at = doc.indexOf(marker);
    assert.ok(at >= 0, `docs/testing.md has no block for ${file}`);
    const start = at + marker.length;
    const shown = doc.slice(start, doc.indexOf('```\n', start));
    assert.equal(shown, readFileSync(file, 'utf8'), `docs/testing.md differs from ${file}`);
  }
});

// The examples read the server's address when they are loaded, as they would from a CI's environment.
const app: TestApp = await startApp({}, { listen: true });
process.env.MOCKINGBIRD_URL = app.url;
process.env.MOCKINGBIRD_API_KEY = ADMIN_KEY;
after(async () => app.stop());

register('./shims/loader.mjs', import.meta.url);
// Each example registers its tests and hooks here, as its framework would.
for (const file of EXAMPLES) await import(`../../${file}`);
