/**
 * Loop detection for requests Mockingbird sends on (SPEC §7): every outbound request carries the
 * `X-Mockingbird-Hop` header, the ids of the instances it went through, ours appended. A request that
 * arrives with our own id has come back to us: a proxy whose target is Mockingbird itself, directly
 * or through other hosts. Detected by an id, never by guessing addresses (a name, a load balancer or
 * a port mapping can hide that the target is us). Several instances behind one balancer each add
 * their own id; past MAX_HOPS ids the request is refused as a loop whatever the ids say.
 */
import { randomBytes } from 'node:crypto';

export const HOP_HEADER = 'x-mockingbird-hop';
/** Instances a request may pass through before it is taken for a loop. */
export const MAX_HOPS = 8;

/** A fresh instance id (one per server). */
export function newInstanceId(): string {
  return randomBytes(9).toString('base64url');
}

function hopIds(incoming: string | undefined): string[] {
  return (incoming ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Whether the incoming hop header shows a loop, and the value to send on. */
export function nextHop(incoming: string | undefined, instanceId: string): { loop: boolean; value: string } {
  return nextHopWithin(incoming, instanceId, 1);
}

/**
 * As nextHop, for senders that may legitimately come back to this instance a few times (a rule
 * callout to another endpoint of the same Mockingbird, whose rule calls out again): `depth` is how
 * often `instanceId` is in the header already, and it is a loop once that reaches `maxDepth` (the
 * proxy's is 1: never back through itself), or past MAX_HOPS ids whatever they are.
 */
export function nextHopWithin(
  incoming: string | undefined,
  instanceId: string,
  maxDepth: number,
): { loop: boolean; depth: number; value: string } {
  const ids = hopIds(incoming);
  const depth = ids.filter((id) => id === instanceId).length;
  const loop = depth >= maxDepth || ids.length >= MAX_HOPS;
  return { loop, depth, value: [...ids, instanceId].join(', ') };
}
