/** Public surface of live events. */
export {
  EVENT_NAMES,
  CHANGE_KINDS,
  EVENT_ID,
  idAfter,
  type ChangeKind,
  type ChangeListener,
  type EndpointChange,
  type EventBus,
  type EventName,
  type MockEvent,
  type EventListener,
  type Replay,
} from './bus.js';
export { MemoryEventBus, type MemoryEventBusOptions } from './memory-bus.js';
