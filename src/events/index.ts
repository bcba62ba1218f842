/** Public surface of live events. */
export {
  MemoryEventBus,
  EVENT_NAMES,
  CHANGE_KINDS,
  type ChangeKind,
  type ChangeListener,
  type EndpointChange,
  type EventBus,
  type EventName,
  type MockEvent,
  type EventListener,
} from './bus.js';
