/**
 * Keeps one of Node's `process.nextTick` objects alive for the life of the process, so that V8 keeps
 * the shape (hidden class) of every later one. Imported first by the CLI, before the rest of the
 * service loads.
 *
 * Why: Node builds each tick object as an object literal with two computed symbol keys. V8 forgets
 * a shape that no live object uses at a major garbage collection, and the start-up's collections
 * often find no tick object alive; each then gives the next tick object a new shape. After five of
 * them, the literal's property definitions in `nextTick` are megamorphic for good, and the optimised
 * `nextTick` defines each property through a runtime call (Runtime_DefineKeyedOwnPropertyInLiteral)
 * for the rest of the process: about 5k instructions a tick, five ticks an echo request from Node's
 * own stream code. Without this, about half of the service's starts ended in that state (the cost of
 * `nextTick` about 9 times higher in a CPU profile under load); with it, none of twelve did.
 * `%DebugPrint(process.nextTick)` shows the literal's slots MEGAMORPHIC in the one state and
 * MONOMORPHIC in the other. docs/echo.md tells how this was found.
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
