import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mockingbird, type EndpointClient } from 'mockingbird-server/client';

const mb = new Mockingbird({
  baseUrl: process.env.MOCKINGBIRD_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.MOCKINGBIRD_API_KEY,
});

// The code under test: a client of a payments API whose base URL is configurable.
async function chargeCard(baseUrl: string, amount: number): Promise<string> {
  const res = await fetch(`${baseUrl}/charges`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount, currency: 'EUR' }),
  });
  if (!res.ok) throw new Error(`payment refused (${res.status})`);
  return ((await res.json()) as { id: string }).id;
}

describe('chargeCard', () => {
  let payments: EndpointClient;

  beforeAll(async () => {
    payments = await mb.ensureEndpoint('payments-vitest');
    await payments.reset();
    await payments.addRule({
      method: 'POST',
      conditions: [{ type: 'path', operator: 'equals', value: '/charges' }],
      action: {
        type: 'mock',
        status: 201,
        body: '{"id":"ch_1"}',
        headers: [{ key: 'content-type', value: 'application/json' }],
      },
    });
  });

  afterAll(async () => {
    await payments.reset();
  });

  it('posts the amount and returns the charge id', async () => {
    const id = await chargeCard(payments.url(), 1250);
    expect(id).toBe('ch_1');

    const req = await payments.waitForRequest({ method: 'POST', path: '/charges' }, { timeout: 5000 });
    const recorded = await payments.request(req.id);
    expect(JSON.parse(recorded.request?.body ?? '{}')).toEqual({ amount: 1250, currency: 'EUR' });
    expect(await payments.requestCount({ path: '/charges' })).toBe(1);
  });
});
