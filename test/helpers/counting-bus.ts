/** An in-memory event bus that counts live subscriptions, to see that a closed stream unsubscribes. */
import { MemoryEventBus, type EventListener } from '../../src/events/index.js';

export class CountingBus extends MemoryEventBus {
  active = 0;
  override subscribe(endpoint: string, listener: EventListener): () => void {
    this.active++;
    const stop = super.subscribe(endpoint, listener);
    let done = false;
    return () => {
      if (!done) this.active--;
      done = true;
      stop();
    };
  }
}
