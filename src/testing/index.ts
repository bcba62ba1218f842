/**
 * Test-run helpers, published as `mockingbird-server/testing`: a server started for a test run
 * (`startMockingbird`), for a test runner's global setup. It starts the server as a child process
 * and loads only the typed client.
 */
export { startMockingbird, type StartOptions, type StartedMockingbird } from './start.js';
