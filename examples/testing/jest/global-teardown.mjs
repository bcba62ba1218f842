// Runs once after the test files: ends the server and removes its data folder.
export default async function globalTeardown() {
  await globalThis.__MOCKINGBIRD__?.stop();
}
