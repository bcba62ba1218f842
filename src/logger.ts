/**
 * The service's logger: pino, JSON lines on stdout (readable lines on a terminal: log-pretty.ts). Lines are gathered for one turn of the event
 * loop and handed to the output in one piece: sonic-boom measures its whole pending buffer on every
 * write (`Buffer.byteLength`), which costs more than pino takes to build a line.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { prettyOutput } from './log-pretty.js';

/** A pino destination that joins the lines written during one event-loop turn. */
export class LineBatcher {
  private parts: string[] = [];
  private size = 0;
  private scheduled = false;
  private readonly flushSoon = (): void => {
    this.scheduled = false;
    this.flush();
  };

  constructor(private readonly out: { write(s: string): unknown; flushSync?(): void }) {}

  write(line: string): boolean {
    this.parts.push(line);
    this.size += line.length;
    if (this.size >= 16_384) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushSoon);
    }
    return true;
  }

  /** Hands the gathered lines to the output (which writes them asynchronously). */
  flush(): void {
    if (this.parts.length === 0) return;
    const text = this.parts.length === 1 ? this.parts[0]! : this.parts.join('');
    this.parts = [];
    this.size = 0;
    this.out.write(text);
  }

  /** Everything written so far reaches the file descriptor before this returns (shutdown). */
  flushSync(): void {
    this.flush();
    this.out.flushSync?.();
  }
}

/**
 * The logger: JSON lines on stdout, or readable ones (log-pretty.ts) with `format` `pretty`, or `auto`
 * when stdout is a terminal.
 */
export function createLogger(
  level: string,
  format: 'auto' | 'json' | 'pretty' = 'json',
  isTty = process.stdout.isTTY === true,
): { log: Logger; stream: LineBatcher } {
  const out = pino.destination({ dest: 1, sync: false, minLength: 0 });
  const pretty = format === 'pretty' || (format === 'auto' && isTty);
  const stream = new LineBatcher(pretty ? prettyOutput(out) : out);
  const log = pino({ level, redact: ['req.headers.authorization'] }, stream);
  return { log, stream };
}

/** The URL for the log line, with an `access_token` query value (EventSource auth) hidden. */
export function redactUrl(url: string): string {
  return url.includes('access_token=') ? url.replace(/([?&]access_token=)[^&]*/g, '$1[redacted]') : url;
}

type RequestLine = (
  method: string,
  host: string | undefined,
  url: string,
  status: number,
  ms: number,
) => void;

/**
 * The request line written straight to pino's stream, in pino's format (level, time, the logger's
 * bindings, the fields, `msg`), without building an object for pino to walk: the line is paid on
 * every request. Only for a plain pino logger (no mixin, log formatter or write hook, which the line
 * would bypass); any other logger gets `log.info`.
 */
export function requestLineWriter(log: FastifyBaseLogger): RequestLine {
  const slow: RequestLine = (method, host, url, status, ms) =>
    log.info({ method, host, url, status, ms }, 'request');
  const s = pino.symbols;
  const internals = log as unknown as Record<symbol, unknown>;
  const at = <T>(sym: symbol): T | undefined => internals[sym] as T | undefined;
  const chindings = at<string>(s.chindingsSym);
  const time = at<() => string>(s.timeSym);
  const level = at<Record<number, string>>(s.lsCacheSym)?.[30];
  const end = at<string>(s.endSym);
  const stream = at<{ write?: (line: string) => unknown }>(s.streamSym);
  const isEnabled = (log as Partial<Logger>).isLevelEnabled;
  if (
    typeof chindings !== 'string' ||
    typeof time !== 'function' ||
    typeof level !== 'string' ||
    typeof end !== 'string' ||
    typeof stream?.write !== 'function' ||
    typeof isEnabled !== 'function' ||
    at(s.mixinSym) ||
    at<{ log?: unknown }>(s.formattersSym)?.log ||
    at<{ streamWrite?: unknown }>(s.hooksSym)?.streamWrite ||
    (at<string>(s.messageKeySym) ?? 'msg') !== 'msg'
  )
    return slow;
  return (method, host, url, status, ms) => {
    // The level can be changed while the service runs.
    if (!isEnabled.call(log, 'info')) return;
    stream.write!(
      level +
        time() +
        chindings +
        ',"method":' +
        jsonString(method) +
        (host === undefined ? '' : ',"host":' + jsonString(host)) +
        ',"url":' +
        jsonString(url) +
        ',"status":' +
        String(status) +
        ',"ms":' +
        (Number.isFinite(ms) ? String(ms) : 'null') +
        ',"msg":"request"' +
        end,
    );
  };
}

/**
 * `JSON.stringify(s)` for a string, without the call where nothing needs escaping: the request line
 * writes three short strings per request, and Node 20's JSON.stringify has a fixed cost however
 * short the string (docs/performance.md, "Measurements behind the code"). Control characters, `"`, `\` and surrogates (lone ones are escaped, paired ones
 * kept, which JSON.stringify sorts out) go to JSON.stringify.
 */
export function jsonString(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c & 0xf800) === 0xd800) return JSON.stringify(s);
  }
  return '"' + s + '"';
}

/** Writes the request line of one answered request: the URL as sent, its status, ms since it came. */
export type RequestLog = (req: IncomingMessage, sentUrl: string, status: number, ms: number) => void;

/** The request line writer of `log`: the URL redacted, the time rounded to 0.01 ms. */
export function requestLog(log: FastifyBaseLogger): RequestLog {
  const line = requestLineWriter(log);
  return (req, sentUrl, status, ms) =>
    line(req.method ?? '', req.headers.host, redactUrl(sentUrl), status, Math.round(ms * 100) / 100);
}

/**
 * One JSON line per request the management plane (Fastify) answers, written when the answer has been
 * sent; the endpoint plane's door writes its own with the same writer.
 */
export function logRequests(fastify: FastifyInstance, write: RequestLog): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    write(request.raw, request.originalUrl, reply.statusCode, reply.elapsedTime);
    done();
  });
}
