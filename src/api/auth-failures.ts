/**
 * Slowing down key guessing (SPEC §12): failed authentications are counted per client IP in the shared
 * rate limiter (across instances with REDIS_URL). Past AUTH_FAILURE_LIMIT in a minute, every attempt from that IP is refused with 429
 * `rate_limited` and `Retry-After` until the window ends, the right key included (else a guesser
 * would still learn which key is right). Each failure is logged with the IP, never with the key.
 */
import type { FastifyRequest } from 'fastify';
import type { ApiDeps } from './deps.js';
import { AppError } from '../errors.js';
import { clientIp, rateLimitedError, type RateDecision } from '../http/index.js';

const WINDOW_MS = 60_000;
/** Most IPs remembered as blocked at once; the oldest entry goes first. */
const MAX_BLOCKED = 10_000;

export class AuthFailures {
  private readonly blocked = new Map<string, RateDecision>();

  constructor(private readonly ctx: Pick<ApiDeps, 'config' | 'limiter' | 'log' | 'now'>) {}

  private ipOf(request: FastifyRequest): string {
    return clientIp(request.raw, request.headers, this.ctx.config.trustProxy);
  }

  private refusal(ip: string, d: RateDecision): AppError {
    return rateLimitedError(d, this.ctx.now(), `Too many failed authentications from ${ip}; retry later.`);
  }

  /**
   * Throws 429 while the request's IP is over its failure limit: as this instance saw it, else as the
   * shared count says (failures counted by other instances block the IP here too, the right key
   * included).
   */
  async check(request: FastifyRequest): Promise<void> {
    const ip = this.ipOf(request);
    const d = this.blocked.get(ip);
    if (d && d.resetAt * 1000 > this.ctx.now()) throw this.refusal(ip, d);
    if (d) this.blocked.delete(ip);
    const shared = await this.ctx.limiter.peek?.(
      `authfail:${ip}`,
      this.ctx.config.authFailureLimit,
      WINDOW_MS,
    );
    if (shared && !shared.allowed) {
      this.block(ip, shared);
      throw this.refusal(ip, shared);
    }
  }

  private block(ip: string, d: RateDecision): void {
    if (!this.blocked.has(ip)) {
      if (this.blocked.size >= MAX_BLOCKED) this.blocked.delete(this.blocked.keys().next().value!);
      this.ctx.log.warn({ ip, limit: d.limit }, 'too many failed API authentications; refusing the IP');
    }
    this.blocked.set(ip, d);
  }

  /** Counts a failed authentication; returns the 429 to throw instead of the 401 once over the limit. */
  async failed(request: FastifyRequest, reason: string): Promise<AppError | undefined> {
    const ip = this.ipOf(request);
    const d = await this.ctx.limiter.hit(`authfail:${ip}`, this.ctx.config.authFailureLimit, WINDOW_MS);
    this.ctx.log.info({ ip, reason, url: request.url.split('?')[0] }, 'API authentication failed');
    if (d.allowed) return undefined;
    this.block(ip, d);
    return this.refusal(ip, d);
  }
}
