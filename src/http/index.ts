/** Public surface of the request-capture layer and the answers shared by every route. */
export {
  captureParts,
  captureRequest,
  collectHeaders,
  parseQuery,
  clientIp,
  type CapturedRequest,
  type RequestParts,
} from './capture.js';
export { readBody, drainAndClose, mayHaveBody } from './body.js';
export {
  jsonBody,
  parseBody,
  parseUrlEncoded,
  isJsonType,
  dict,
  MULTIPART_MAX_PARTS,
  MULTIPART_MAX_BOUNDARY,
  JSON_MAX_DEPTH,
  INVALID_UTF8_WARNING,
  type ParsedBody,
  type UploadedFile,
} from './parse.js';
export { MemoryRateLimiter, rateLimitHeaders, type RateLimiter, type RateDecision } from './rate-limit.js';
export { clientErrorHandler } from './client-error.js';
export {
  addHeader,
  errorAnswer,
  headerMap,
  headerValues,
  replyHeaders,
  sendAnswer,
  withHeaders,
  writeAnswer,
  FAULTS,
  JSON_TYPE,
  TEXT_TYPE,
  type Answer,
  type Dribble,
  type Fault,
  type AnswerHeaders,
  type HeaderValue,
} from './answer.js';
export { corsHeaders, isPreflight, preflightHeaders, OPEN_ORIGIN, type CorsPolicy } from './cors.js';
export { rateLimitedAnswer, rateLimitedError, tooLargeAnswer } from './refusals.js';
export { answerExpectContinue } from './expect-continue.js';
export { refuseConnect } from './connect.js';
export { routeUpgrades, upgradeOf, type Upgrade } from './upgrade.js';
export {
  capConnectionsPerIp,
  createNodeServer,
  resetConnection,
  serverTimeoutOptions,
  type ServerTimeouts,
} from './connections.js';
export { redactHeaders, redactValue, REDACTED, SENSITIVE_HEADERS } from './redact.js';
export { failureAnswer, frameworkErrors, installErrorHandlers } from './error-handler.js';
export { fileUploadParser, FileUpload, type FileUploadOptions } from './file-upload.js';
export { installJsonBodyParser, DOCUMENT_MAX_DEPTH } from './json-body.js';
export { BodyTap } from './body-tap.js';
export { HOP_BY_HOP, hopByHopNames, withoutHopByHop } from './hop-by-hop.js';
