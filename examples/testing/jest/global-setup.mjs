import { startMockingbird } from 'mockingbird-server/testing';

// Runs once before the test files; the workers Jest starts next inherit the environment.
export default async function globalSetup() {
  const mb = await startMockingbird();
  globalThis.__MOCKINGBIRD__ = mb; // read by global-teardown.mjs, which runs in this process
  process.env.MOCKINGBIRD_URL = mb.url;
  process.env.MOCKINGBIRD_API_KEY = mb.key;
}
