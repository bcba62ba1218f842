/**
 * Long synchronous work cut into slices (compiling 500 rules with regular expressions, validating a
 * bulk upload): the caller awaits the slicer between units, and every `budgetMs` it lets the event
 * loop run the requests that waited (SPEC §12: no request holds the loop for more than ~100 ms).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

export type Slicer = () => Promise<void>;

export function timeSlicer(budgetMs = 10): Slicer {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < budgetMs) return;
    await nextTurn();
    since = performance.now();
  };
}
