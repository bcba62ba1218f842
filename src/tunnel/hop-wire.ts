/**
 * What one instance and another say to each other when a request hops to the instance holding its
 * endpoint's tunnel client (tunnel/cluster.ts): the lease naming that instance, the key proving a hop
 * comes from an instance, and the framing of a hop's bodies.
 *
 * Trust: instances share one secret, generated once and kept in the shared database (never configured,
 * never sent as is). Two keys are derived from it: the hop key, which a hop request carries in
 * HOP_KEY_HEADER and the receiver compares in constant time, and the lease key, which signs each lease
 * (endpoint, owner, address). An instance forwards only to the address of a lease whose signature holds:
 * whoever can write to Redis but does not hold the secret cannot point hops (and the hop key) at an
 * address of their choosing.
 *
 * A hop is `POST <INSTANCE_URL>/_mockingbird/hop/<endpoint>`. Its body is a head (a 4-byte big-endian
 * length, then that many bytes of JSON: the request's RequestHead) followed by the request body; the
 * answer is 200 with a head (`{ "status", "headers": [[name, value]…] }`, or `{ "none": true }` when the
 * instance has no client of the endpoint) followed by the answer's body. Status and headers travel in
 * the body so that no HTTP semantics of the hop (HEAD, 304, Content-Length) touch the tunnelled answer.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { hostname } from 'node:os';
import type { Readable } from 'node:stream';

/** The path prefix of hops; reserved on every host while REDIS_URL is set. */
export const HOP_PREFIX = '/_mockingbird/hop/';
/** The header carrying the hop key. */
export const HOP_KEY_HEADER = 'x-mockingbird-tunnel-hop';
/** The shared database's meta key of the instances' secret. */
export const HOP_SECRET_META = 'tunnel_hop_secret';
/** Largest head of a hop's body or answer, in bytes. */
export const MAX_HOP_HEAD = 1024 * 1024;

export interface HopKeys {
  /** What a hop request carries in HOP_KEY_HEADER. */
  hop: string;
  /** Signs leases. */
  lease: Buffer;
}

/** The two keys derived from the instances' shared secret. */
export function hopKeys(secret: string): HopKeys {
  const derive = (label: string): Buffer => createHmac('sha256', secret).update(label).digest();
  return {
    hop: derive('mockingbird/tunnel-hop/v1').toString('base64url'),
    lease: derive('mockingbird/tunnel-lease/v1'),
  };
}

/** Whether `presented` is the hop key, compared in constant time. */
export function isHopKey(keys: HopKeys, presented: string | string[] | undefined): boolean {
  if (typeof presented !== 'string') return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(keys.hop);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Who holds an endpoint's tunnel clients: an instance and the URL it is reached at. */
export interface LeaseOwner {
  instance: string;
  url: string;
}

function leaseSignature(keys: HopKeys, endpoint: string, owner: LeaseOwner): Buffer {
  return createHmac('sha256', keys.lease).update(`${endpoint}\n${owner.instance}\n${owner.url}`).digest();
}

/** The value of `endpoint`'s lease held by `owner`: `v1 <instance> <url> <signature>`. */
export function leaseValue(keys: HopKeys, endpoint: string, owner: LeaseOwner): string {
  const sig = leaseSignature(keys, endpoint, owner).toString('base64url');
  return `v1 ${owner.instance} ${owner.url} ${sig}`;
}

/** The owner a lease value names, or undefined when it is malformed or not signed with the lease key. */
export function leaseOwner(keys: HopKeys, endpoint: string, value: string): LeaseOwner | undefined {
  const parts = value.split(' ');
  if (parts.length !== 4 || parts[0] !== 'v1') return undefined;
  const owner = { instance: parts[1]!, url: parts[2]! };
  const sig = Buffer.from(parts[3]!, 'base64url');
  const expected = leaseSignature(keys, endpoint, owner);
  if (sig.length !== expected.length || !timingSafeEqual(sig, expected)) return undefined;
  return owner;
}

/**
 * The URL other instances reach this one at when INSTANCE_URL is unset: HOST when it names one address,
 * else the machine's host name; the port listened on.
 */
export function defaultInstanceUrl(host: string, port: number, https: boolean): string {
  const wildcard = host === '' || host === '0.0.0.0' || host === '::' || host === '[::]';
  const name = wildcard ? hostname() : host.replace(/^\[(.*)\]$/, '$1');
  return `${https ? 'https' : 'http'}://${name.includes(':') ? `[${name}]` : name}:${port}`;
}

/** A head: its JSON behind a 4-byte big-endian length. */
export function headFrame(head: unknown): Buffer {
  const json = Buffer.from(JSON.stringify(head), 'utf8');
  const len = Buffer.allocUnsafe(4);
  len.writeUInt32BE(json.length, 0);
  return Buffer.concat([len, json]);
}

/**
 * Reads the head at the start of `stream` (a hop's request or answer) and leaves the stream at the
 * first byte after it, paused. Rejects when the stream ends or breaks first, the head is longer than
 * `max`, or it is not a JSON object.
 */
export function readHead(stream: Readable, max = MAX_HOP_HEAD): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let buf: Buffer = Buffer.alloc(0);
    const done = (err: Error | undefined, head?: Record<string, unknown>): void => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('error', done);
      stream.off('close', onEnd);
      if (err) reject(err);
      else resolve(head!);
    };
    const onEnd = (): void => done(new Error('the hop ended before its head'));
    const onReadable = (): void => {
      let chunk: Buffer | null;
      while ((chunk = stream.read() as Buffer | null) !== null) {
        buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
        if (buf.length < 4) continue;
        const len = buf.readUInt32BE(0);
        if (len > max) return done(new Error(`a hop's head is longer than ${max} bytes`));
        if (buf.length < 4 + len) continue;
        const rest = buf.subarray(4 + len);
        let head: unknown;
        try {
          head = JSON.parse(buf.subarray(4, 4 + len).toString('utf8'));
        } catch {
          return done(new Error("a hop's head is not JSON"));
        }
        if (typeof head !== 'object' || head === null || Array.isArray(head))
          return done(new Error("a hop's head is not a JSON object"));
        done(undefined, head as Record<string, unknown>);
        if (rest.length > 0) stream.unshift(rest);
        return;
      }
    };
    stream.on('readable', onReadable);
    stream.on('end', onEnd);
    stream.on('error', done);
    stream.on('close', onEnd);
    onReadable();
  });
}
