/**
 * What `mockingbird serve` tells a person at start: the banner (where the dashboard and the echo answer,
 * which configuration file was loaded with its endpoints, where the data lives, how to make a key), and
 * the start-time check of REDIS_URL. URLs are shown with their password hidden.
 */
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import type { Config } from './config.js';

/** `url` with its password (if any) replaced by `***`. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

const errorText = (err: unknown): string =>
  err instanceof AggregateError && err.errors.length > 0
    ? errorText(err.errors[0])
    : err instanceof Error
      ? err.message || err.name
      : String(err);

/**
 * Connects to REDIS_URL and pings it once: the reason it cannot be reached, or undefined when it
 * answered. Never retries: a start that waits on an unreachable Redis is a start that hangs.
 */
export async function redisProblem(url: string, timeoutMs = 3000): Promise<string | undefined> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let lastError: unknown;
  redis.on('error', (err: unknown) => (lastError = err));
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (err) {
    return errorText(lastError ?? err);
  } finally {
    redis.disconnect();
  }
}

export interface StartFacts {
  version: string;
  scheme: string;
  port: number;
  /** The configuration file and the endpoints it set up, when one was loaded. */
  configFile?: { file: string; endpoints: string[] };
  /** Set when this start generated the admin key. */
  generatedAdminKey?: string | undefined;
}

/** The banner, one string: its first line is `Mockingbird V listening on URL` (tests wait for it). */
export function startBanner(cfg: Config, f: StartFacts): string {
  const base = `${f.scheme}://localhost:${f.port}`;
  const lines = [
    `Mockingbird ${f.version} listening on ${f.scheme}://${cfg.host}:${f.port}`,
    `  dashboard  ${base}/`,
    `  echo       ${base}/e/echo/   (browsers and curl also resolve ${f.scheme}://echo.${cfg.baseDomain}:${f.port}/)`,
  ];
  if (f.configFile) {
    const names = f.configFile.endpoints;
    lines.push(
      `  config     ${f.configFile.file}: ${names.length} endpoint${names.length === 1 ? '' : 's'}` +
        (names.length > 0 ? `, at ${base}/e/<name>/ (${names.join(', ')})` : ''),
    );
  }
  lines.push(
    cfg.databaseUrl
      ? `  data       PostgreSQL at ${safeUrl(cfg.databaseUrl)}`
      : `  data       SQLite in ${resolve(cfg.dataDir, 'mockingbird.db')}`,
  );
  if (cfg.redisUrl)
    lines.push(
      `  redis      ${safeUrl(cfg.redisUrl)} answers; instances coordinate through it (docs/deploy.md)`,
    );
  lines.push(`  API keys   mockingbird keys create --server ${base} --api-key <admin key>`);
  let text = lines.join('\n') + '\n';
  if (f.generatedAdminKey) {
    text +=
      `\nAdmin API key (shown once, stored hashed; keep it): ${f.generatedAdminKey}\n` +
      `Use it as: Authorization: Bearer ${f.generatedAdminKey}\n\n`;
  }
  return text;
}
