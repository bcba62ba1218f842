/**
 * The HTTP proxy link of the fallback chain (SPEC §7): with `proxy.targetUrl` set, a request no rule
 * answered goes to the target: method, path and query (appended to the target's own path), headers
 * without hop-by-hop ones, `Host` that of the target, `X-Forwarded-For/Proto/Host` added, the body as
 * received. The upstream's status and headers (hop-by-hop ones removed, repeats kept) come back at once
 * and its body streams through as it arrives; the history records both sides as `proxy`.
 * Redirects are answers like any other, passed back and never followed.
 *
 * Failures answer with the JSON error body: the target refused by the address policy 502
 * `target_refused`, unreachable 502 `bad_gateway`, no answer in PROXY_TIMEOUT 504 `gateway_timeout`,
 * a request that has already passed through this instance 508 `loop_detected`.
 *
 * With `proxy.record: true`, each complete exchange also becomes a rule (recording.ts), once per
 * method and path.
 */
import { promisify } from 'node:util';
import { pipeline } from 'node:stream';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import type { MockDeps } from './deps.js';
import type { Exchange, Outcome } from '../endpoint/index.js';
import { sensitiveHeaders } from '../history/index.js';
import { AppError, type ErrorCode } from '../errors.js';
import { BodyTap, errorAnswer, hopByHopNames, withoutHopByHop, type AnswerHeaders } from '../http/index.js';
import {
  HOP_HEADER,
  newInstanceId,
  nextHop,
  OutboundError,
  parseTarget,
  TargetRefused,
} from '../outbound/index.js';
import { Body } from '../schema/index.js';
import type { MockExchange, MockStep } from './endpoint-settings.js';
import { hasRuleFor, recordedRule, type RuleRecorder } from './recording.js';

/** Request headers the proxy sets itself (or leaves to the client library: Host, Content-Length). */
const REPLACED = new Set([
  'host',
  'content-length',
  'expect',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  HOP_HEADER,
]);

/** The request headers sent on: repeats kept, hop-by-hop and replaced ones left out, ours added. */
export function forwardHeaders(x: Exchange, hop: string): Record<string, string[]> {
  const raw = x.request.rawHeaders;
  const connection: string[] = [];
  const forwardedFor: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (name === 'connection') connection.push(raw[i + 1]!);
    if (name === 'x-forwarded-for') forwardedFor.push(raw[i + 1]!);
  }
  const drop = hopByHopNames(connection);
  const out: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (drop.has(name) || REPLACED.has(name)) continue;
    (out[name] ??= []).push(raw[i + 1]!);
  }
  out['x-forwarded-for'] = [[...forwardedFor, x.request.ip].join(', ')];
  out['x-forwarded-proto'] = [x.request.protocol];
  if (x.request.host !== '') out['x-forwarded-host'] = [x.request.host];
  out[HOP_HEADER] = [hop];
  return out;
}

/** The target URL for a request: the target's path with the request's path and query appended. */
export function upstreamUrl(targetUrl: string, path: string): string {
  const t = parseTarget(targetUrl);
  return t.origin + t.pathname.replace(/\/+$/, '') + path;
}

const STATUS: Record<OutboundError['kind'], [number, ErrorCode]> = {
  refused: [502, 'target_refused'],
  failed: [502, 'bad_gateway'],
  timeout: [504, 'gateway_timeout'],
};

function failure(status: number, code: ErrorCode, message: string): Outcome {
  return { behavior: 'proxy', answer: errorAnswer(status, code, message), problems: [message] };
}

/** A rule body is text of at most this many bytes. */
const RULE_BODY_MAX = Body.maxLength ?? 10 * 1024 * 1024;

const DECODERS: Record<string, (b: Buffer, o: { maxOutputLength: number }) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

/** The body as text, decoded from its Content-Encoding; undefined when it is not UTF-8 text. */
async function bodyText(
  body: Buffer,
  encoding: string | undefined,
  max: number,
): Promise<string | undefined> {
  const enc = (encoding ?? 'identity').trim().toLowerCase();
  let plain = body;
  if (enc !== 'identity' && enc !== '') {
    const decode = DECODERS[enc];
    if (!decode) return undefined;
    plain = await decode(body, { maxOutputLength: max });
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(plain);
  } catch {
    return undefined;
  }
}

export function proxyStep(
  ctx: Pick<MockDeps, 'config' | 'log' | 'outbound' | 'store'>,
  recordRule: RuleRecorder,
): MockStep {
  const instanceId = newInstanceId();
  const sensitive = sensitiveHeaders(ctx.config);
  /** Method and path being recorded right now, so that concurrent requests record once. */
  const recording = new Set<string>();

  /** After the answer has streamed by: the exchange as a rule, unless one exists for it already. */
  async function record(
    x: MockExchange,
    status: number,
    headers: AnswerHeaders,
    body: Buffer,
  ): Promise<void> {
    const { method, pathname } = x.request;
    const key = `${x.endpoint.record.name}\n${method}\n${pathname}`;
    if (recording.has(key)) return;
    recording.add(key);
    try {
      if (await hasRuleFor(ctx, x.endpoint.record.name, method, pathname)) return;
      const enc = headers['content-encoding'];
      const text = await bodyText(body, typeof enc === 'string' ? enc : enc?.join(','), RULE_BODY_MAX);
      if (text === undefined) {
        ctx.log.info(
          { endpoint: x.endpoint.record.name, method, pathname },
          'proxy.record: body is not text; not recorded',
        );
        return;
      }
      const { 'content-encoding': _decoded, ...rest } = headers;
      const data = recordedRule(
        { id: x.request.id, method, path: pathname, status, headers: rest, body: text, source: 'proxy' },
        sensitive,
      );
      await recordRule(x.endpoint.record, data);
    } catch (err) {
      const reason = err instanceof AppError ? err.message : String(err);
      ctx.log.info(
        { endpoint: x.endpoint.record.name, method, pathname, reason },
        'proxy.record: not recorded',
      );
    } finally {
      recording.delete(key);
    }
  }

  return async (x) => {
    const { proxy } = x.endpoint.settings;
    if (!proxy.targetUrl || !x.endpoint.plan.proxy) return undefined;
    const incomingHops = x.request.headers[HOP_HEADER];
    const hop = nextHop(incomingHops, instanceId);
    if (hop.loop)
      return failure(
        508,
        'loop_detected',
        'This request has already passed through this Mockingbird (X-Mockingbird-Hop): the proxy target leads back here.',
      );
    let url: string;
    try {
      url = upstreamUrl(proxy.targetUrl, x.request.path);
    } catch (err) {
      if (err instanceof TargetRefused) return failure(502, 'target_refused', err.message);
      throw err;
    }
    const { method, rawBody } = x.request;
    let res;
    try {
      res = await ctx.outbound.request({
        url,
        method,
        headers: forwardHeaders(x, hop.value),
        body: rawBody.length > 0 || !['GET', 'HEAD'].includes(method) ? rawBody : undefined,
        ignoreTlsErrors: proxy.ignoreSSLErrors,
      });
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      const [status, code] = STATUS[err.kind];
      const what = err.kind === 'refused' ? 'The proxy target is refused' : 'The proxy target failed';
      return failure(status, code, `${what}: ${err.message}.`);
    }
    const headers = withoutHopByHop(res.headers);
    let stream = res.body;
    if (proxy.record) {
      const limit = Math.min(ctx.config.captureLimit, RULE_BODY_MAX);
      const tap = new BodyTap(limit);
      pipeline(res.body, tap, (err) => {
        const { body, truncated } = tap.captured();
        if (err || truncated) return;
        void record(x, res.status, headers, body);
      });
      stream = tap;
    }
    return { behavior: 'proxy', answer: { status: res.status, headers, body: '', stream } };
  };
}
