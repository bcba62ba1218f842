/**
 * `request.created` (SPEC §4 "Real-time events"): dashboards hear of a request once its history entry
 * is written, so that they can fetch it; the event carries the entry's summary in the API's shape.
 */
import type { AppContext } from '../context.js';
import { historyRecord } from './history-query.js';

/** Publishes `request.created` for every history entry written, to endpoints someone listens to. */
export function publishRequestEvents(ctx: Pick<AppContext, 'history' | 'events'>): void {
  ctx.history.onWritten((batch) => {
    for (const { entry } of batch) {
      if (!ctx.events.isListening(entry.endpoint)) continue; // no dashboard: no summary to build
      ctx.events.publish({
        endpoint: entry.endpoint,
        name: 'request.created',
        data: historyRecord(entry, false),
      });
    }
  });
}
