import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Mockingbird } from 'mockingbird-server/client';

// The server global-setup.mjs started for this run.
const mb = new Mockingbird({
  baseUrl: process.env.MOCKINGBIRD_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.MOCKINGBIRD_API_KEY,
});

// The code under test: it retries once when the inventory service answers 503.
async function stockOf(baseUrl, sku) {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${baseUrl}/stock/${sku}`);
    if (res.status === 503 && attempt === 0) continue;
    if (!res.ok) throw new Error(`inventory answered ${res.status}`);
    return (await res.json()).count;
  }
}

describe('stockOf', () => {
  let inventory;

  beforeAll(async () => {
    inventory = await mb.ensureEndpoint('inventory-jest');
    await inventory.reset();
  });

  afterAll(async () => {
    await inventory.reset();
  });

  it('retries once after a 503', async () => {
    // The first call is refused, the next ones answer: a counter in the endpoint's state tells them apart.
    await inventory.replaceRules([
      {
        method: 'GET',
        conditions: [{ type: 'state', key: 'calls', stateType: 'counter', operator: 'equals', value: '0' }],
        action: { type: 'mock', status: 503, body: "{{step-counter 'inc' 'calls'}}", templated: true },
      },
      {
        method: 'GET',
        conditions: [{ type: 'path', operator: 'template', value: '/stock/:sku' }],
        action: { type: 'mock', status: 200, body: '{"count":7}' },
      },
    ]);

    expect(await stockOf(inventory.url(), 'A-1')).toBe(7);
    const seen = await inventory.expectRequest({ method: 'GET', path: '/stock/A-1' }, { times: 2 });
    expect(seen.map((entry) => entry.status)).toEqual([503, 200]);
  });
});
