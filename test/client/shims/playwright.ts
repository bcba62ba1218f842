/**
 * Stands in for `@playwright/test` when the suite runs the documented Playwright example: `test`
 * (with `beforeAll`, `afterAll`, `describe`) over node:test, `expect`, and the `request` fixture as a
 * small APIRequestContext over fetch. There is no browser: the example drives the app's API only.
 */
import { test as nodeTest, before, after, describe } from 'node:test';
import { expect } from './expect.js';

export interface APIResponse {
  ok(): boolean;
  status(): number;
  json(): Promise<unknown>;
  text(): Promise<string>;
}

interface RequestOptions {
  data?: unknown;
  headers?: Record<string, string>;
}

async function send(method: string, url: string, opts: RequestOptions = {}): Promise<APIResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | undefined;
  if (opts.data !== undefined) {
    body = typeof opts.data === 'string' ? opts.data : JSON.stringify(opts.data);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  return {
    ok: () => res.ok,
    status: () => res.status,
    json: async () => JSON.parse(text) as unknown,
    text: async () => text,
  };
}

export const request = {
  get: (url: string, o?: RequestOptions) => send('GET', url, o),
  post: (url: string, o?: RequestOptions) => send('POST', url, o),
  put: (url: string, o?: RequestOptions) => send('PUT', url, o),
  delete: (url: string, o?: RequestOptions) => send('DELETE', url, o),
};
export type APIRequestContext = typeof request;

type Body = (fixtures: { request: APIRequestContext }) => Promise<void>;

// Each returns void, as Playwright's own do.
export const test = Object.assign(
  (name: string, fn: Body): void => {
    void nodeTest(name, () => fn({ request }));
  },
  {
    beforeAll: (fn: () => Promise<void>): void => before(fn),
    afterAll: (fn: () => Promise<void>): void => after(fn),
    describe: (name: string, fn: () => void): void => {
      void describe(name, fn);
    },
  },
);
export { expect };
