/**
 * The `callout` rule action (SPEC §4): a matched request makes Mockingbird send a request of its own
 * to `callout.url`, through the one outbound client and SSRF guard (`ctx.outbound`: the proxy's, no
 * second copy of the address checks).
 *
 * - `sync`: the callout is sent at once and the target's whole response (status, headers less
 *   hop-by-hop ones, body streamed) is the answer. Failures answer like the proxy's, with the JSON
 *   error body: refused 502 `target_refused`, unreachable 502 `bad_gateway`, no answer in
 *   PROXY_TIMEOUT 504 `gateway_timeout`, a loop 508 `loop_detected`.
 * - `async`: the action's own `status`/`headers`/`body` answer at once; the callout is queued
 *   (outbound/callout-queue.ts, bounded) and sent after a random delay within `delay.min`..`delay.max` ms,
 *   counted from the answer.
 *
 * `transform: forward` (default) sends the request's headers (hop-by-hop ones left out, `Host` the
 * target's, `X-Forwarded-*` added, as the proxy does) and body, multipart files included;
 * `custom` sends the callout's own `headers` and `body`, rendered when `callout.templated`.
 * `callout.method` `*` (default) is the request's method. The URL is sent as written.
 *
 * Both are recorded with behavior `callout`, the callout's request and response kept with the entry
 * (headers redacted, bodies cut at CAPTURE_LIMIT as the entry's are). An async callout's entry is
 * written `pending` with the answer; once the callout has its own answer (or failed, or was
 * cancelled at shutdown) the entry's `callout` is replaced in the store, after the history writer
 * has flushed the entry itself.
 *
 * Loops: every callout carries `X-Mockingbird-Hop` with this instance's id. A request that has already
 * come through CALLOUT_MAX_DEPTH of this instance's callouts (a callout to an endpoint of the same
 * Mockingbird whose rule calls out again, and so on) is not called out again: 508 for sync, a failed
 * callout for async. MAX_HOPS bounds the chain whatever the ids.
 */
import type { MockDeps } from './deps.js';
import type { Exchange, Outcome } from '../endpoint/index.js';
import { capturedBody, sensitiveHeaders } from '../history/index.js';
import type { ErrorCode } from '../errors.js';
import { errorAnswer, HOP_BY_HOP, redactHeaders, TEXT_TYPE, withoutHopByHop } from '../http/index.js';
import {
  HOP_HEADER,
  nextHopWithin,
  OutboundError,
  redactTargetUrl,
  type CalloutQueue,
} from '../outbound/index.js';
import type { CalloutRecord } from '../store/index.js';
import { headerValueProblem } from '../template/index.js';
import type { CalloutCompiler, Rendered, ResponseRenderer, TemplateCompiler } from './actions.js';
import { forwardHeaders } from './proxy-step.js';
import type { Action } from './rule-model.js';

type CalloutAction = Extract<Action, { type: 'callout' }>;
type Params = Readonly<Record<string, string>>;

/** The request a callout sends, rendered for one exchange. */
interface Prepared {
  method: string;
  url: string;
  headers: Record<string, string[]>;
  body: Buffer | undefined;
  problems: string[];
  files: CalloutRecord['request']['files'];
}

/** Custom headers Mockingbird sets itself, or that would break the framing of the request. */
const NOT_CUSTOM = new Set([...HOP_BY_HOP, 'host', 'content-length', 'expect', HOP_HEADER]);

const FAILURES: Record<OutboundError['kind'] | 'loop', [number, ErrorCode]> = {
  refused: [502, 'target_refused'],
  failed: [502, 'bad_gateway'],
  timeout: [504, 'gateway_timeout'],
  loop: [508, 'loop_detected'],
};

const LOOP_MESSAGE = (depth: number) =>
  `This request has already come through ${depth} callout(s) of this Mockingbird (X-Mockingbird-Hop): ` +
  'the callout is not sent again (CALLOUT_MAX_DEPTH).';

/** A header list with one value per name as a plain string (what the history shows). */
function flat(headers: Readonly<Record<string, readonly string[]>>): Record<string, string | string[]> {
  const out = Object.create(null) as Record<string, string | string[]>;
  for (const [k, v] of Object.entries(headers)) out[k] = v.length === 1 ? v[0]! : [...v];
  return out;
}

/** Reads at most `limit` bytes of a body (the rest is not waited for), within `deadline` ms. */
async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(err?: Error): void },
  limit: number,
  deadlineMs: number,
): Promise<{ data: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  const timer = setTimeout(
    () => body.destroy(new Error(`the body took longer than ${deadlineMs} ms`)),
    deadlineMs,
  );
  try {
    for await (const chunk of body) {
      const room = limit - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size = limit;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } finally {
    clearTimeout(timer);
    body.destroy();
  }
  return { data: Buffer.concat(chunks, size), truncated };
}

/** The callout compiler of one server: sends through `ctx.outbound`, queues async ones on `queue`. */
export function calloutCompiler(
  ctx: Pick<MockDeps, 'config' | 'history' | 'log' | 'now' | 'outbound' | 'store'>,
  queue: CalloutQueue,
): CalloutCompiler {
  const sensitive = sensitiveHeaders(ctx.config);
  const redact = (h: Record<string, string | string[]>) =>
    redactHeaders(h, sensitive) as Record<string, string | string[]>;
  const limit = (): number => ctx.config.captureLimit;

  /** Writes an async callout's outcome into its entry, once the entry itself has been written. */
  async function persist(endpoint: string, id: string, rec: CalloutRecord): Promise<void> {
    try {
      await ctx.history.flush();
      if (await ctx.store.setHistoryCallout(endpoint, id, rec)) return;
      ctx.log.info({ endpoint, id }, 'callout: its history entry is gone; outcome not kept');
    } catch (err) {
      ctx.log.warn({ endpoint, id, err }, 'callout: outcome not kept');
    }
  }

  return (a: CalloutAction, ruleId: string, compile: TemplateCompiler, respond: ResponseRenderer) => {
    const c = a.callout;
    const custom = c.transform === 'custom';
    const templated = c.templated === true;
    const fixed = (text: string) => (): Rendered => ({ ok: true, text, problems: [] });
    const body = custom ? (templated ? compile(c.body ?? '') : fixed(c.body ?? '')) : undefined;
    // A header item's own `templated: true` renders its value whatever `callout.templated` says (SPEC §4).
    const headers = (c.headers ?? []).map((h) => ({
      key: h.key.toLowerCase(),
      value: templated || h.templated === true ? compile(h.value) : fixed(h.value),
    }));
    const delay = c.delay ?? { min: 0, max: 0 };

    /** The callout's request for `x`, or the template error that prevents it. */
    function prepare(x: Exchange, p: Params, hop: string): Prepared | { error: string } {
      const method = c.method === undefined || c.method === '*' ? x.request.method : c.method;
      const noBody = method === 'GET' || method === 'HEAD' || method === 'TRACE';
      if (!custom) {
        const raw = x.request.rawBody;
        return {
          method,
          url: c.url,
          headers: forwardHeaders(x, hop),
          body: raw.length > 0 || !noBody ? raw : undefined,
          problems: [],
          files: x.request.files.map((f) => ({
            name: f.name,
            fileName: f.fileName,
            contentType: f.contentType,
            size: f.size,
          })),
        };
      }
      const problems: string[] = [];
      const out: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
      for (const h of headers) {
        if (NOT_CUSTOM.has(h.key)) {
          problems.push(`Callout header "${h.key}" was left out: Mockingbird sets it.`);
          continue;
        }
        const v = h.value(x, p);
        if (!v.ok) return { error: v.error };
        problems.push(...v.problems);
        const unsendable = headerValueProblem(v.text);
        if (unsendable !== undefined) {
          problems.push(
            `Callout header "${h.key}" was left out: ${unsendable.replace('its value', 'its rendered value')}.`,
          );
          continue;
        }
        (out[h.key] ??= []).push(v.text);
      }
      const b = body!(x, p);
      if (!b.ok) return { error: b.error };
      problems.push(...b.problems);
      if (out['content-type'] === undefined && b.text !== '') {
        const t = b.text.trimStart();
        out['content-type'] = [
          t.startsWith('{') || t.startsWith('[') ? 'application/json; charset=utf-8' : TEXT_TYPE,
        ];
      }
      out[HOP_HEADER] = [hop];
      const data = Buffer.from(b.text, 'utf8');
      return {
        method,
        url: c.url,
        headers: out,
        body: data.length > 0 || !noBody ? data : undefined,
        problems,
        files: [],
      };
    }

    /** The callout's request as the history keeps it. */
    function recordOf(req: Prepared): CalloutRecord {
      const kept = capturedBody(req.body ?? '', limit());
      const rec: CalloutRecord = {
        behavior: a.behavior === 'sync' ? 'sync' : 'async',
        state: 'pending',
        request: {
          method: req.method,
          // A rule saved before URLs with credentials were refused may still carry them: never kept.
          url: redactTargetUrl(req.url),
          headers: redact(flat(req.headers)),
          body: kept.text,
          bodyTruncated: kept.truncated,
          files: req.files,
        },
      };
      if (c.connectionId !== undefined) rec.connectionId = c.connectionId;
      return rec;
    }

    function failure(kind: keyof typeof FAILURES, message: string, rec: CalloutRecord | undefined): Outcome {
      const [status, code] = FAILURES[kind];
      const o: Outcome = {
        behavior: 'callout',
        ruleId,
        answer: errorAnswer(status, code, message),
        problems: [message],
      };
      if (rec) o.callout = { ...rec, state: 'failed', error: message };
      return o;
    }

    async function sync(x: Exchange, p: Params): Promise<Outcome> {
      const hop = nextHopWithin(x.request.headers[HOP_HEADER], queue.instanceId, ctx.config.calloutMaxDepth);
      const req = prepare(x, p, hop.value);
      if ('error' in req) return templateFailure(req.error, ruleId);
      const rec = recordOf(req);
      if (hop.loop) return failure('loop', LOOP_MESSAGE(hop.depth), rec);
      const sentAt = ctx.now();
      try {
        const res = await ctx.outbound.request({
          url: req.url,
          method: req.method,
          headers: req.headers,
          body: req.body,
        });
        const resHeaders = withoutHopByHop(res.headers);
        rec.state = 'done';
        rec.sentAt = sentAt;
        rec.durationMs = Math.max(0, ctx.now() - sentAt);
        rec.response = {
          status: res.status,
          headers: redact(resHeaders as Record<string, string | string[]>),
        };
        const o: Outcome = {
          behavior: 'callout',
          ruleId,
          answer: { status: res.status, headers: resHeaders, body: '', stream: res.body },
          callout: rec,
        };
        if (req.problems.length > 0) o.problems = req.problems;
        return o;
      } catch (err) {
        if (!(err instanceof OutboundError)) throw err;
        const what = err.kind === 'refused' ? 'The callout target is refused' : 'The callout target failed';
        return failure(err.kind, `${what}: ${err.message}.`, rec);
      }
    }

    async function send(x: Exchange, req: Prepared, rec: CalloutRecord, signal: AbortSignal): Promise<void> {
      const sentAt = ctx.now();
      let done: CalloutRecord;
      try {
        const res = await ctx.outbound.request({
          url: req.url,
          method: req.method,
          headers: req.headers,
          body: req.body,
          signal,
        });
        const { data, truncated } = await readCapped(res.body, limit(), ctx.config.proxyTimeout);
        const kept = capturedBody(data, limit());
        done = {
          ...rec,
          state: 'done',
          sentAt,
          durationMs: Math.max(0, ctx.now() - sentAt),
          response: {
            status: res.status,
            headers: redact(withoutHopByHop(res.headers) as Record<string, string | string[]>),
            body: kept.text,
            bodyTruncated: truncated || kept.truncated,
          },
        };
      } catch (err) {
        const reason = signal.aborted
          ? 'aborted: the server shut down while the callout was being sent'
          : err instanceof OutboundError
            ? `${err.kind === 'refused' ? 'The callout target is refused' : 'The callout target failed'}: ${err.message}.`
            : `The callout failed: ${(err as Error).message}.`;
        done = {
          ...rec,
          state: 'failed',
          error: reason,
          sentAt,
          durationMs: Math.max(0, ctx.now() - sentAt),
        };
      }
      await persist(x.endpoint.record.name, x.request.id, done);
    }

    async function later(x: Exchange, p: Params): Promise<Outcome> {
      const own = await respond(x, p);
      const o: Outcome = { ...own, behavior: 'callout' };
      const hop = nextHopWithin(x.request.headers[HOP_HEADER], queue.instanceId, ctx.config.calloutMaxDepth);
      const req = prepare(x, p, hop.value);
      if ('error' in req) {
        o.problems = [...(o.problems ?? []), `Callout not sent: ${req.error}`];
        return o;
      }
      if (req.problems.length > 0) o.problems = [...(o.problems ?? []), ...req.problems];
      const rec = recordOf(req);
      let refused: string | undefined;
      if (hop.loop) refused = LOOP_MESSAGE(hop.depth);
      else {
        const wait = Math.round(delay.min + Math.random() * (delay.max - delay.min));
        refused = queue.schedule({
          endpoint: x.endpoint.record.name,
          delayMs: wait,
          run: (signal) => send(x, req, rec, signal),
          cancel: (reason) =>
            persist(x.endpoint.record.name, x.request.id, { ...rec, state: 'cancelled', error: reason }),
        });
      }
      o.callout =
        refused === undefined ? rec : { ...rec, state: hop.loop ? 'failed' : 'cancelled', error: refused };
      if (refused !== undefined) o.problems = [...(o.problems ?? []), refused];
      return o;
    }

    return a.behavior === 'sync' ? sync : later;
  };
}

/** SPEC §6: when the callout's request cannot be rendered, 561 text/plain naming the error. */
function templateFailure(error: string, ruleId: string): Outcome {
  return {
    behavior: 'callout',
    ruleId,
    answer: {
      status: 561,
      headers: { 'content-type': TEXT_TYPE },
      body: `Cannot produce the callout: ${error}\n`,
    },
    problems: [error],
  };
}
