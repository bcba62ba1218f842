/**
 * What the lane (lane.ts) leaves to Fastify, kept on the request until the endpoint route picks it
 * up: the lifecycle has run, and only the sending is Fastify's (a streamed answer, HEAD, a bodiless
 * status…), or the lifecycle failed and Fastify's error handler answers.
 */
import type { IncomingMessage } from 'node:http';
import type { Decision } from './lifecycle.js';

type Left = { decided: Decision } | { failed: unknown };

const left = new WeakMap<IncomingMessage, Left>();

export function handOver(req: IncomingMessage, what: Left): void {
  left.set(req, what);
}

/** The decision the lane left for `req`, once; throws the lane's failure; undefined when none. */
export function handedOver(req: IncomingMessage): Decision | undefined {
  const what = left.get(req);
  if (what === undefined) return undefined;
  left.delete(req);
  if ('failed' in what) throw what.failed;
  return what.decided;
}
