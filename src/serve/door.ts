/**
 * The endpoint plane's door: every endpoint request (the target endpoint/dispatch.ts found) is served
 * here, on Node's raw request and response, from its first byte to its request line. Fastify never
 * sees one. The steps and the answer each can give (docs/architecture.md draws them):
 *
 *   closing?            → 503 shutting_down, Connection: close
 *   name > 1000 chars?  → 414 uri_too_long
 *   resolve             → (a store read is awaited) unknown or invalid name: 404, text
 *   lifecycle.run       → the answer (rate limit, body limit, CORS preflight, rules … are its steps)
 *   write               → a whole answer (writeWhole), dribbled (an answer's `chunked`, dribble.ts),
 *                         or a streamed one piped as it arrives
 *   fault?              → instead of the answer, the fault on the socket (fault.ts); a streamed
 *                         answer's body is not read
 *   failure             → the one error body (failureAnswer); once the head is out, the connection is cut
 *
 * Every answer of the path form carries the sandbox (endpoint/sandbox.ts). The request line is
 * written once the response closes (finished or cut); a request whose connection is gone before
 * anything was decided (a body that failed mid-way) gets none.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { errorBody } from '../errors.js';
import { BodyTap, failureAnswer, headerMap, JSON_TYPE, type Answer } from '../http/index.js';
import {
  sandboxed,
  type Decision,
  type Lifecycle,
  type Outcome,
  type Resolved,
  type ResolvedEndpoint,
  type StreamRecorder,
  type Target,
} from '../endpoint/index.js';
import type { RequestLog } from '../logger.js';
import { writeStreamHead, writeWhole } from './write.js';
import { writeDribble } from './dribble.js';
import { FaultHolds, writeFault } from './fault.js';

/** The longest endpoint name the door looks up; a longer one is 414 (names are far shorter). */
export const NAME_MAX = 1000;

export interface PlaneOptions<E extends ResolvedEndpoint = ResolvedEndpoint> {
  lifecycle: Lifecycle<E>;
  /** The request line. */
  log: RequestLog;
  /** For failures and cut streams. */
  logger: FastifyBaseLogger;
  /** How much of a streamed answer the history keeps. */
  captureLimit: number;
  /** Ms a `timeout` fault holds its socket (FAULT_TIMEOUT_MAX). */
  faultTimeoutMax: number;
}

export interface Plane {
  /** Serves one endpoint request to its end. */
  handle(req: IncomingMessage, res: ServerResponse, target: Target): void;
  /** From now on every request is answered 503 (the server is closing). */
  close(): void;
  /** Requests the door has taken; sockets `timeout` faults hold now. */
  stats(): { served: number; faultsHeld: number };
}

const URI_TOO_LONG = JSON.stringify(
  errorBody('uri_too_long', `A path segment is longer than ${NAME_MAX} characters.`),
);
const SHUTTING_DOWN = JSON.stringify(errorBody('shutting_down'));

export function endpointPlane<E extends ResolvedEndpoint>(o: PlaneOptions<E>): Plane {
  let closing = false;
  let served = 0;
  const holds = new FaultHolds();

  const handle = (req: IncomingMessage, res: ServerResponse, target: Target): void => {
    served++;
    const started = performance.now();
    const sentUrl = req.url ?? '/';
    const own = (a: Answer): Answer => (target.pathForm ? sandboxed(a) : a);
    // A fault sends no status: its line says 0.
    let faulted = false;
    const line = (): void => o.log(req, sentUrl, faulted ? 0 : res.statusCode, performance.now() - started);

    /** Writes the fault `a` names on the socket instead of `a`. */
    const fault = (a: Answer & Required<Pick<Answer, 'fault'>>): void => {
      faulted = true;
      res.on('close', line);
      writeFault(res, own(a), a.fault, holds, o.faultTimeoutMax);
    };

    /** Writes a whole answer; a header Node refuses is answered as a failure. */
    const whole = (a: Answer): void => {
      if (a.fault !== undefined) return fault({ ...a, fault: a.fault });
      try {
        if (a.chunked) writeDribble(res, req.method, own(a), a.chunked);
        else writeWhole(res, req.method, own(a));
      } catch (err) {
        return fail(err);
      }
      res.on('close', line);
    };

    const fail = (err: unknown): void => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      try {
        writeWhole(res, req.method, own(failureAnswer(err, o.logger, req.method ?? '', sentUrl)));
      } catch {
        res.destroy();
        return;
      }
      res.on('close', line);
    };

    const streamed = (outcome: Outcome, record: StreamRecorder): void => {
      const a = own(outcome.answer);
      const stream = a.stream!;
      if (a.fault !== undefined) {
        // The upstream has answered; its body is not read (nothing of it reaches the client).
        // Destroyed unread, undici's body emits "Request aborted": expected, not a failure.
        stream.on('error', () => {});
        stream.destroy();
        record({ problems: outcome.problems ?? [], recordedBody: '' }, false);
        return fault({ ...a, fault: a.fault });
      }
      let withBody: boolean;
      try {
        withBody = writeStreamHead(res, a);
      } catch (err) {
        stream.destroy();
        return fail(err);
      }
      res.on('close', line);
      const tap = new BodyTap(o.captureLimit);
      const done = (err: Error | null | undefined): void => {
        const { body, truncated } = tap.captured();
        const problems = [...(outcome.problems ?? [])];
        if (err) {
          problems.push(`The answer was cut after ${tap.length} bytes: ${err.message}`);
          // An upstream that closes early is the upstream's doing: one line, no stack.
          o.logger.warn(
            {
              method: req.method,
              url: sentUrl.split('?')[0],
              status: a.status,
              bytes: tap.length,
              reason: err.message,
            },
            'streamed answer cut',
          );
        }
        record({ problems, recordedBody: body }, truncated);
      };
      if (withBody) pipeline(stream, tap, res, done);
      else {
        pipeline(stream, tap, done);
        tap.resume();
      }
    };

    const send = (d: Decision): void => {
      try {
        if (d.answer) whole(d.answer);
        else if (d.streamed) streamed(d.streamed, d.record);
        // dropped: the connection is gone, nothing to send
      } catch (err) {
        fail(err);
      }
    };

    const run = (resolved: Resolved<E> | undefined): void => {
      let d: Decision | Promise<Decision>;
      try {
        d = o.lifecycle.run(req, target, resolved);
      } catch (err) {
        return fail(err);
      }
      if (d instanceof Promise) d.then(send, fail);
      else send(d);
    };

    if (closing) {
      const headers = Object.assign(headerMap(), { 'content-type': JSON_TYPE, connection: 'close' });
      return whole({ status: 503, headers, body: SHUTTING_DOWN });
    }
    if (target.name.length > NAME_MAX)
      return whole({ status: 414, headers: { 'content-type': JSON_TYPE }, body: URI_TOO_LONG });
    let found: Resolved<E> | undefined | Promise<Resolved<E> | undefined>;
    try {
      found = o.lifecycle.resolve(target);
    } catch (err) {
      return fail(err);
    }
    // A built-in or an endpoint the cache holds is found at once; only a store read waits.
    if (found instanceof Promise) found.then(run, fail);
    else run(found);
  };

  return {
    handle,
    close() {
      closing = true;
      holds.close();
    },
    stats: () => ({ served, faultsHeld: holds.size }),
  };
}
