/**
 * History exports (`GET …/requests?format=har|ndjson`): the entries the list's filters select, newest
 * first, written as one HAR 1.2 document or as NDJSON (one verbose entry a line), streamed.
 *
 * Bounds: at most `limit` entries (HISTORY_EXPORT_MAX unless the query asks for fewer); the store is
 * read EXPORT_PAGE entries at a time, and the next page only when the client has taken what was
 * written (the stream is pulled), so an export holds one page in memory however large it is and
 * however slowly it is read. The first page is read before the answer starts, so that a filter the
 * database refuses is still a 400; a failure after that can only cut the answer short.
 * A HAR stopped by `limit` while more entries match says so in `log.comment`, with the cursor that
 * continues it; NDJSON has no room for that, and its reader counts lines against `limit`.
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { Config } from '../config.js';
import { harEntry, type HarOrigin } from '../history/index.js';
import type { EndpointRecord, HistoryEntry, HistoryFilter, Page, Store } from '../store/index.js';
import { historyRecord } from './history-query.js';

/** The HAR's `creator.version`: this package's. */
export const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** Entries read from the store at a time (each may hold two bodies of CAPTURE_LIMIT bytes). */
export const EXPORT_PAGE = 10;

/** What `GET …/requests?format=` may ask for besides the JSON list. */
export type ExportFormat = 'har' | 'ndjson';

/** Content types of the exports. */
export const EXPORT_TYPES: Record<ExportFormat, string> = {
  har: 'application/json; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

export interface ExportRequest {
  endpoint: string;
  filter: HistoryFilter;
  /** Most entries written. */
  limit: number;
  /** Where a previous page or export stopped. */
  cursor?: string | undefined;
  format: ExportFormat;
  origin: HarOrigin;
  creator: { name: string; version: string };
}

type Lister = Pick<Store, 'listHistory'>;

/**
 * Where the endpoint's requests were sent, for the HAR's URLs: the scheme the API was reached with
 * (the endpoints are served on the same listener), and the host names that name the endpoint
 * (`<name>.<BASE_DOMAIN>`, its custom domain); any other recorded host used the path form `/e/<name>`.
 */
export function harOrigin(config: Pick<Config, 'baseDomain'>, ep: EndpointRecord, scheme: string): HarOrigin {
  const own = `${ep.name}.${config.baseDomain}`.toLowerCase();
  const hosts = new Set([own]);
  const custom = (ep.settings as { customDomain?: { enabled?: unknown; domain?: unknown } }).customDomain;
  if (custom?.enabled === true && typeof custom.domain === 'string') hosts.add(custom.domain.toLowerCase());
  return { scheme, endpoint: ep.name, endpointHosts: hosts, fallbackHost: own };
}

/**
 * The export's body as a pulled stream. Reads the first page now (its errors are the caller's to
 * answer); later pages are read as the client takes the earlier ones.
 */
export async function historyExport(store: Lister, x: ExportRequest): Promise<Readable> {
  const read = (cursor: string | undefined, want: number): Promise<Page<HistoryEntry>> =>
    store.listHistory(x.endpoint, x.filter, Math.min(EXPORT_PAGE, want), cursor);
  const first = await read(x.cursor, x.limit);
  /** Set once the last page is read: whether entries past `limit` still match, and where they start. */
  const end: { more: boolean; cursor: string | null } = { more: false, cursor: null };

  async function* entries(): AsyncGenerator<HistoryEntry> {
    let page = first;
    let written = 0;
    for (;;) {
      for (const e of page.data) {
        written++;
        yield e;
      }
      if (!page.hasMore || page.cursor === null) return;
      if (written >= x.limit) {
        end.more = true;
        end.cursor = page.cursor;
        return;
      }
      page = await read(page.cursor, x.limit - written);
    }
  }

  async function* ndjson(): AsyncGenerator<string> {
    for await (const e of entries()) yield JSON.stringify(historyRecord(e, true)) + '\n';
  }

  async function* har(): AsyncGenerator<string> {
    yield `{"log":{"version":"1.2","creator":${JSON.stringify(x.creator)},"pages":[],"entries":[`;
    let sep = '\n';
    for await (const e of entries()) {
      yield sep + JSON.stringify(harEntry(e, x.origin));
      sep = ',\n';
    }
    const comment = end.more
      ? `,"comment":${JSON.stringify(
          `Stopped at ${x.limit} entries (limit, at most HISTORY_EXPORT_MAX); more match: ` +
            `continue with cursor=${end.cursor ?? ''}`,
        )}`
      : '';
    yield `\n]${comment}}}\n`;
  }

  return Readable.from(x.format === 'har' ? har() : ndjson(), { objectMode: false });
}
