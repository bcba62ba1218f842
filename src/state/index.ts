/** Public surface of endpoint state: the model and its bounds, a request's session, the lock. */
export {
  jsonBytes,
  keyProblem,
  parseStateType,
  STATE_MAX_KEY,
  STATE_TYPES,
  stateId,
  stateLimits,
  valueProblem,
  type StateLimits,
} from './model.js';
export { StateSession } from './session.js';
export { MemoryStateLock, type StateLock } from './lock.js';
