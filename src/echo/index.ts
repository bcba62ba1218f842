/** Public surface of the echo server. */
export {
  echoDocument,
  isPreflight,
  preflightHeaders,
  ECHO_METHODS,
  PREFLIGHT_MAX_AGE,
  type EchoDocument,
} from './echo.js';
