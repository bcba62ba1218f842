/**
 * The typed client for tests, published as `mockingbird-server/client`. It must stay free of the
 * server's modules at run time (test/client/bundle.test.ts checks it): types come through
 * `import type` only.
 */
export { Mockingbird, type MockingbirdOptions } from './mockingbird.js';
export { EndpointClient, type WaitOptions } from './endpoint.js';
export { ContractViolationError } from './violations.js';
export { TotpClient, TOTP_BUDGET_MS, type TotpBudget, type TotpOptions } from './totp.js';
export { MockingbirdError, retryAfterSeconds, type FetchLike, type RetryOptions } from './http.js';
export type { EventStream } from './events.js';
export type * from './types.js';
