import { expect, test } from '@playwright/test';
import { Mockingbird } from 'mockingbird-server/client';

const mb = new Mockingbird({
  baseUrl: process.env.MOCKINGBIRD_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.MOCKINGBIRD_API_KEY,
});
const weather = mb.endpoint('weather-playwright');

test.beforeAll(async () => {
  await mb.ensureEndpoint(weather.name);
  await weather.reset();
  await weather.addRule({
    method: 'GET',
    conditions: [{ type: 'path', operator: 'template', value: '/forecast/:city' }],
    action: {
      type: 'mock',
      status: 200,
      templated: true,
      headers: [{ key: 'content-type', value: 'application/json' }],
      body: `{"city":"{{pathParam 'city'}}","sky":"sunny"}`,
    },
  });
});

test('the forecast request reaches the mock', async ({ request }) => {
  // In a real test the page under test calls the mock (its API base URL set to weather.url()).
  const res = await request.get(weather.url('/forecast/Lyon'));
  await expect(res).toBeOK();
  expect(await res.json()).toEqual({ city: 'Lyon', sky: 'sunny' });

  const seen = await weather.waitForRequest({ path: '/forecast/Lyon' });
  expect(seen.rule.matched).toBe(true);
});

test('a second factor from the TOTP generator', async () => {
  // The secret the test user was enrolled with. freshCode answers the current code, or the next step's
  // when this one ends within 3 s; it retries a 429 after its Retry-After; all of it within 4 s.
  const { id } = await mb.totp.register({ issuer: 'ACME', secret: 'JBSWY3DPEHPK3PXP' });
  const code = await mb.totp.freshCode(id);
  expect(code).toMatch(/^\d{6}$/);
});
