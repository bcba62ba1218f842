/** Public surface of the echo server. */
export { echoDocument, ECHO_CORS, ECHO_METHODS, PREFLIGHT_MAX_AGE, type EchoDocument } from './echo.js';
export { echoPipeline } from './pipeline.js';
export type { EchoDeps } from './deps.js';
