/**
 * Headless Chromium for the dashboard's end-to-end tests: Debian's `chromium` (or CHROMIUM_PATH),
 * driven by playwright-core, with a fresh profile per launch. CI (`CI` set, or
 * DASHBOARD_TESTS=required, as .ci/run does) makes these tests mandatory: a missing browser or a
 * missing build is then a failure that says what to install; elsewhere the tests skip with a message.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
export const BROWSER_TESTS_REQUIRED =
  Boolean(process.env['CI']) || process.env['DASHBOARD_TESTS'] === 'required';
/** The real dashboard build (`npm run build` writes it; `npm ci` runs the build). */
export const WEB_DIR = fileURLToPath(new URL('../../dist/web', import.meta.url));
/** Where the tests leave their screenshots (not committed). */
export const RESULTS_DIR = fileURLToPath(new URL('../../test-results', import.meta.url));

const MISSING_BROWSER = `Chromium is not installed at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`;
const MISSING_BUILD = `The dashboard is not built (no ${WEB_DIR}/index.html): run npm run build`;

/**
 * `false` when the browser tests can run (or must run, and will then fail with the reason);
 * otherwise the message to skip with.
 */
export function browserSkip(): string | false {
  if (BROWSER_TESTS_REQUIRED) return false;
  if (!existsSync(CHROMIUM))
    return `${MISSING_BROWSER}. Browser tests skipped (DASHBOARD_TESTS=required makes them mandatory).`;
  if (!existsSync(join(WEB_DIR, 'index.html'))) return `${MISSING_BUILD}. Browser tests skipped.`;
  return false;
}

export interface TestBrowser {
  browser: Browser;
  /** Console errors seen on any page (CSP violations, uncaught exceptions). */
  errors: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh profile; throws with the fix when it or the build is missing. */
export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(MISSING_BROWSER);
  if (!existsSync(join(WEB_DIR, 'index.html'))) throw new Error(MISSING_BUILD);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'mockingbird-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--no-default-browser-check',
    ],
    viewport: { width: 1400, height: 900 },
  });
  const errors: string[] = [];
  const watch = (page: Page) => {
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
  };
  context.on('page', watch);
  for (const p of context.pages()) watch(p);
  return {
    browser: context.browser() as Browser,
    errors,
    newPage: () => context.newPage(),
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot of `page` under test-results/. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(RESULTS_DIR, `${name}.png`) });
}
