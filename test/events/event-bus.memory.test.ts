/** The EventBus contract, run against the in-memory bus. */
import { MemoryEventBus } from '../../src/events/index.js';
import { eventBusContract } from './event-bus.contract.js';

eventBusContract('memory', () => new MemoryEventBus());
