/**
 * Public surface of schema support: the TypeBox primitives the models and the API share, and the
 * validation that turns TypeBox findings into the documented error details (400 validation_error).
 */
export {
  Body,
  HeaderList,
  HeaderMap,
  HeaderName,
  HeaderValue,
  HostName,
  Nullable,
  Status,
  StringEnum,
} from './primitives.js';
export {
  detail,
  explain,
  MAX_DETAILS,
  parseWith,
  received,
  useTypeBox,
  validationError,
} from './validate.js';
