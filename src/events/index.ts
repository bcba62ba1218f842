/** Public surface of live events. */
export {
  MemoryEventBus,
  EVENT_NAMES,
  type EventBus,
  type EventName,
  type MockEvent,
  type EventListener,
} from './bus.js';
