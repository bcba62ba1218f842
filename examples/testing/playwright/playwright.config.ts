import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

// Playwright reads this file in its runner and again in each worker; the workers inherit the runner's
// environment, so the key and the data folder are made once, in the runner.
const port = Number(process.env.MOCKINGBIRD_PORT ?? 8787);
process.env.MOCKINGBIRD_URL = `http://127.0.0.1:${port}`;
process.env.MOCKINGBIRD_API_KEY ??= `mb_${randomBytes(24).toString('base64url')}`;
process.env.MOCKINGBIRD_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'mockingbird-playwright-'));

export default defineConfig({
  webServer: {
    // --no: run the project's own mockingbird, never download one.
    command: `npx --no mockingbird serve --host 127.0.0.1 --port ${port}`,
    url: `${process.env.MOCKINGBIRD_URL}/e/echo/`,
    env: { DATA_DIR: process.env.MOCKINGBIRD_DATA_DIR, MOCKINGBIRD_API_KEY: process.env.MOCKINGBIRD_API_KEY },
    reuseExistingServer: false, // another server on the port fails the run instead of serving it
  },
  use: {
    browserName: 'chromium',
    launchOptions: {
      // Debian's chromium (apt-get install chromium) instead of a browser Playwright downloads.
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    },
  },
});
