/**
 * The endpoint lane: endpoint requests answered in front of Fastify, on Node's raw request and
 * response. Fastify's routing, its request and reply objects, its hooks and its response listeners
 * cost about a tenth of the echo's main thread under load, for requests whose whole lifecycle is ours
 * (lifecycle.ts) anyway. The lane takes a request only where Fastify would route it to the endpoint
 * routes and the endpoint is known without a wait (a built-in, a record the cache holds): the rest,
 * and every request once the server is closing (Fastify answers 503), go to Fastify untouched. Of what
 * it takes, it writes the plain answers itself, as `replyDirect` writes them, with the request line;
 * what only Fastify's send writes right (a streamed answer, HEAD, a bodiless status…) and a lifecycle
 * that fails are handed to Fastify (hand-over.ts), whose endpoint route sends them, its error handler
 * and request line included.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeDirect } from '../http/index.js';
import { requestStarted, type RequestLog } from '../logger.js';
import { endpointTarget, PATH_FORM_PREFIX } from './dispatch.js';
import { handOver } from './hand-over.js';
import type { Decision, Lifecycle } from './lifecycle.js';
import { isPathForm, markSandboxed, sandboxed } from './sandbox.js';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface LaneOptions {
  lifecycle: Lifecycle;
  /** The URL Fastify routes (its `rewriteUrl`: a `<name>.<domain>` request in the path form). */
  rewrite: (req: IncomingMessage) => string;
  /** The methods Fastify routes to the endpoint routes. */
  methods: readonly string[];
  log: RequestLog;
  /** Fastify's own handler, for everything the lane does not answer. */
  fastify: RequestHandler;
}

export interface Lane {
  handle: RequestHandler;
  /** From now on every request goes to Fastify (which answers 503 while it closes). */
  close(): void;
  /** Requests answered by the lane, and taken by it then handed to Fastify. */
  stats(): { answered: number; handedOver: number };
}

export function endpointLane(o: LaneOptions): Lane {
  const methods = new Set(o.methods);
  let closing = false;
  let answered = 0;
  let handedOver = 0;

  /** A request of the path form is answered by Fastify in the sandbox too (sandbox.ts). */
  const toFastify = (
    req: IncomingMessage,
    res: ServerResponse,
    what: { decided: Decision } | { failed: unknown },
    started: number,
    pathForm: boolean,
  ): void => {
    handedOver++;
    handOver(req, what);
    requestStarted(req, started);
    if (pathForm) markSandboxed(res);
    o.fastify(req, res);
  };

  const send = (
    req: IncomingMessage,
    res: ServerResponse,
    sentUrl: string,
    d: Decision,
    started: number,
    pathForm: boolean,
  ) => {
    if (d.dropped) return; // the connection is gone: nothing to send, no line (as through Fastify)
    if (d.answer) {
      const logLine = (): void => {
        res.removeListener('finish', logLine);
        res.removeListener('error', logLine);
        o.log(req, sentUrl, res.statusCode, performance.now() - started);
      };
      const written = writeDirect(res, req.method, pathForm ? sandboxed(d.answer) : d.answer, () => {
        // As Fastify's response listeners: the line once the answer is handed to the socket, or failed.
        res.on('finish', logLine);
        res.on('error', logLine);
      });
      if (written) {
        answered++;
        return;
      }
    }
    toFastify(req, res, { decided: d }, started, pathForm);
  };

  /** `send`, with a failure answered by Fastify's error handler (or the connection cut, once answering). */
  const sendOrFail = (
    req: IncomingMessage,
    res: ServerResponse,
    sentUrl: string,
    d: Decision,
    started: number,
    pathForm: boolean,
  ): void => {
    try {
      send(req, res, sentUrl, d, started, pathForm);
    } catch (failed) {
      if (res.headersSent) res.destroy();
      else toFastify(req, res, { failed }, started, pathForm);
    }
  };

  const handle: RequestHandler = (req, res) => {
    const sentUrl = req.url ?? '/';
    const routed = o.rewrite(req);
    const pathForm = isPathForm(sentUrl, routed);
    const url = closing ? '' : routed;
    const target =
      url.startsWith(PATH_FORM_PREFIX) && methods.has(req.method ?? '') && !decodesPath(url)
        ? endpointTarget(url)
        : undefined;
    const resolved = target && o.lifecycle.resolveNow(target);
    if (!target || !resolved) {
      if (pathForm) markSandboxed(res);
      return o.fastify(req, res);
    }
    const started = performance.now();
    let d: Decision | Promise<Decision>;
    try {
      d = o.lifecycle.run(req, target, resolved);
    } catch (failed) {
      return toFastify(req, res, { failed }, started, pathForm);
    }
    if (d instanceof Promise)
      d.then(
        (decided) => sendOrFail(req, res, sentUrl, decided, started, pathForm),
        (failed: unknown) => toFastify(req, res, { failed }, started, pathForm),
      );
    else sendOrFail(req, res, sentUrl, d, started, pathForm);
  };

  return {
    handle,
    close() {
      closing = true;
    },
    stats: () => ({ answered, handedOver }),
  };
}

/**
 * Whether Fastify's router would percent-decode `url`'s path (a `%` before the query or fragment),
 * and so might refuse it (a malformed escape is a 400, a long parameter a 414): those go to Fastify.
 */
function decodesPath(url: string): boolean {
  const pct = url.indexOf('%');
  if (pct === -1) return false;
  const q = url.indexOf('?');
  const h = url.indexOf('#');
  const end = q === -1 ? h : h === -1 ? q : Math.min(q, h);
  return end === -1 || pct < end;
}
