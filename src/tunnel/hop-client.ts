/**
 * The sending side of a hop (hop-wire.ts): a request that arrived here for an endpoint whose tunnel
 * client is connected to another instance is sent to that instance, its body from the captured request
 * in 64 KiB slices, the answer streamed back as it arrives (`stream.pipeline` both ways, backpressure
 * end to end). The outcome:
 *
 *   - `answer`: the owner's tunnel client answered (any status; the tunnel's own 502, 503 and 504 too);
 *   - `none`:        the owner has no client of the endpoint any more (or is closing);
 *   - `unreachable`: the owner could not be reached (refused, reset, not connected within
 *                    HOP_CONNECT_TIMEOUT) or broke off before its answer's head;
 *   - `refused`:     the owner did not take the hop key (404).
 *
 * Only `answer` answers; on the others the fallback chain goes on here. An owner silent for the tunnel's
 * timeout (plus HOP_GRACE, so that its own 504 comes first) is answered 504, as the tunnel would.
 *
 * Addresses come only from signed leases (hop-wire.ts), so this client connects where an instance said.
 */
import http from 'node:http';
import https from 'node:https';
import { Readable, pipeline } from 'node:stream';
import { addHeader, headerMap, type Answer } from '../http/index.js';
import { BODY_CHUNK, MAX_HEADERS, type RequestHead } from './protocol.js';
import { HOP_KEY_HEADER, HOP_PREFIX, headFrame, readHead } from './hop-wire.js';
import { textAnswer } from './peer.js';

/** The owner's connection must open within this many ms, else the owner is taken as gone. */
export const HOP_CONNECT_TIMEOUT = 2000;
/** Added to TUNNEL_TIMEOUT before the owner's silence is taken as its end: its own 504 comes first. */
export const HOP_GRACE = 1000;
/** Connections kept to each other instance at once. */
const MAX_SOCKETS = 128;

export type HopResult =
  { kind: 'answer'; answer: Answer } | { kind: 'none' | 'unreachable' | 'refused'; why: string };

export interface HopClientOptions {
  /** The tunnel's timeout (TUNNEL_TIMEOUT, ms). */
  timeoutMs: number;
  hopKey: string;
}

export class HopClient {
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS }),
  };

  constructor(private readonly opts: HopClientOptions) {}

  /** Sends one request to the instance at `ownerUrl`; resolves once its answer's head arrived (or not). */
  async send(ownerUrl: string, endpoint: string, head: RequestHead, body: Buffer): Promise<HopResult> {
    const first = await this.attempt(ownerUrl, endpoint, head, body);
    // A kept-alive connection the owner closed as it was reused: once more, on a new connection.
    if (first === 'stale') {
      const again = await this.attempt(ownerUrl, endpoint, head, body);
      return again === 'stale' ? { kind: 'unreachable', why: 'the connection was reset' } : again;
    }
    return first;
  }

  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }

  private attempt(
    ownerUrl: string,
    endpoint: string,
    head: RequestHead,
    body: Buffer,
  ): Promise<HopResult | 'stale'> {
    const url = new URL(ownerUrl + HOP_PREFIX + encodeURIComponent(endpoint));
    const isHttps = url.protocol === 'https:';
    const frame = headFrame(head);
    return new Promise((resolve) => {
      let settled = false;
      const settle = (r: HopResult | 'stale'): void => {
        if (settled) return;
        settled = true;
        clearTimeout(headTimer);
        resolve(r);
      };
      const req = (isHttps ? https : http).request(url, {
        method: 'POST',
        agent: this.agents[isHttps ? 'https:' : 'http:'],
        headers: {
          [HOP_KEY_HEADER]: this.opts.hopKey,
          'content-type': 'application/octet-stream',
          'content-length': String(frame.length + body.length),
        },
      });
      const headTimer = setTimeout(() => {
        settle({
          kind: 'answer',
          answer: textAnswer(
            504,
            `The local service behind the tunnel did not answer within ${this.opts.timeoutMs / 1000} s.`,
          ),
        });
        req.destroy();
      }, this.opts.timeoutMs + HOP_GRACE);
      req.on('socket', (socket) => {
        if (!socket.connecting) return;
        const t = setTimeout(() => req.destroy(new Error('connect timeout')), HOP_CONNECT_TIMEOUT);
        socket.once('connect', () => clearTimeout(t));
        socket.once('close', () => clearTimeout(t));
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (req.reusedSocket && err.code === 'ECONNRESET') settle('stale');
        else settle({ kind: 'unreachable', why: err.message });
      });
      req.on('response', (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          settle(
            res.statusCode === 404
              ? { kind: 'refused', why: 'the owner refused the hop key' }
              : { kind: 'unreachable', why: `the owner answered ${res.statusCode}` },
          );
          return;
        }
        readHead(res)
          .then((h) => {
            const answer = answerOf(h, res);
            if (answer) settle({ kind: 'answer', answer });
            else {
              res.destroy();
              settle({ kind: 'none', why: 'the owner has no client of the endpoint' });
            }
          })
          .catch((err: Error) => {
            res.destroy();
            settle({ kind: 'unreachable', why: err.message });
          });
      });
      // The body is the captured one: already whole in memory, sent in slices as the socket takes them.
      // Once the answer has come, a failure to send the rest is the answer's business, not ours.
      pipeline(Readable.from(slices(frame, body)), req, () => undefined);
    });
  }
}

function* slices(frame: Buffer, body: Buffer): Generator<Buffer> {
  yield frame;
  for (let i = 0; i < body.length; i += BODY_CHUNK) yield body.subarray(i, i + BODY_CHUNK);
}

/** The owner's answer from its head, the body streaming from `res`; undefined for `{ "none": true }`. */
function answerOf(h: Record<string, unknown>, res: http.IncomingMessage): Answer | undefined {
  const { status, headers } = h;
  if (h['none'] === true) return undefined;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599)
    throw new Error("the hop answer's status is not valid");
  if (!Array.isArray(headers) || headers.length > MAX_HEADERS)
    throw new Error("the hop answer's headers are not a list");
  const out = headerMap();
  for (const line of headers as unknown[]) {
    if (!Array.isArray(line) || typeof line[0] !== 'string' || typeof line[1] !== 'string')
      throw new Error("the hop answer's headers are not [name, value] pairs");
    addHeader(out, line[0], line[1]);
  }
  return { status, headers: out, body: '', stream: res };
}
