import { startMockingbird } from 'mockingbird-server/testing';

// Runs once before the test files; the workers Vitest starts next inherit the environment.
export default async function setup() {
  const mb = await startMockingbird();
  process.env.MOCKINGBIRD_URL = mb.url;
  process.env.MOCKINGBIRD_API_KEY = mb.key;
  return () => mb.stop(); // Vitest calls it after the run: ends the server, removes its data folder
}
