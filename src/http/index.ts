/** Public surface of the request-capture layer. */
export { captureRequest, collectHeaders, parseQuery, clientIp, type CapturedRequest } from './capture.js';
export { readBody, drainAndClose, mayHaveBody } from './body.js';
export {
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
