/**
 * `request.created` (SPEC §4 "Real-time events"): dashboards hear of a request once its history entry
 * is written, so that they can fetch it; the event carries the entry's summary in the API's shape,
 * which the caller gives (`summary`: the API's `historyRecord`, not verbose), so that the history
 * does not import the API that reads it.
 */
import type { EventBus } from '../events/index.js';
import type { HistoryEntry } from '../store/index.js';
import type { HistoryWriter } from './history-writer.js';

/** Publishes `request.created` for every history entry written, to endpoints someone listens to. */
export function publishRequestEvents(
  ctx: { history: Pick<HistoryWriter, 'onWritten'>; events: Pick<EventBus, 'isListening' | 'publish'> },
  summary: (entry: HistoryEntry) => unknown,
): void {
  ctx.history.onWritten((batch) => {
    for (const { entry } of batch) {
      if (!ctx.events.isListening(entry.endpoint)) continue; // no dashboard: no summary to build
      ctx.events.publish({
        endpoint: entry.endpoint,
        name: 'request.created',
        data: summary(entry),
      });
    }
  });
}
