/**
 * Keeps one of Node's `process.nextTick` objects alive for the life of the process, so that V8 keeps
 * the shape (hidden class) of every later one. Imported first by the CLI, before the rest of the
 * service loads.
 *
 * Why: Node builds each tick object as an object literal with two computed symbol keys. In about
 * half of the service's starts (7 of 13), the literal's property definitions in `nextTick` ended up
 * megamorphic (`%DebugPrint(process.nextTick)` shows the slots MEGAMORPHIC, MONOMORPHIC in the other
 * starts), and the optimised `nextTick` then defined each property through a runtime call
 * (Runtime_DefineKeyedOwnPropertyInLiteral) for the rest of the process, on every tick. With one
 * tick object kept alive from the start, none did (the counts: docs/performance.md). Our reading, not checked in V8's source: a major collection drops a shape no live
 * object has, the start-up's collections often found no tick object alive, and each then gave the
 * next one a new shape. docs/performance.md (the echo's rounds) tells how this was found.
 */
import { executionAsyncResource } from 'node:async_hooks';

let kept: object | undefined;

// Inside a nextTick callback, the current async resource is the tick object itself.
process.nextTick(() => {
  kept = executionAsyncResource();
});

/** The tick object kept alive (undefined until the first tick has run). */
export function keptTickObject(): object | undefined {
  return kept;
}
