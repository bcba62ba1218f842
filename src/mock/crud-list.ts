/**
 * The list route of a CRUD collection (`GET /` of the collection): a page bounded in items (`limit`)
 * and in bytes (CRUD_LIST_MAX_BYTES), built from the items' stored JSON texts without parsing them,
 * with a `Link: <?limit=…&offset=…>; rel="next"` header while items remain (a page cut short by the
 * byte bound included). The answer's bytes are reserved in the instance's CrudListBudget before the
 * store is read, and held until the answer has left the process; past the budget the read is 429.
 */
import type { Exchange } from '../endpoint/index.js';
import { errorBody } from '../errors.js';
import { JSON_TYPE, type Answer } from '../http/index.js';
import type { Store } from '../store/index.js';
import type { CrudListBudget } from './crud-list-budget.js';

/** Seconds a refused list read is told to wait: bytes come back as readers read. */
export const CRUD_LIST_RETRY_AFTER_S = 2;

export interface CrudListDeps {
  store: Pick<Store, 'listCrudPage'>;
  budget: CrudListBudget;
  /** Bytes of one page's JSON (at least one item, whatever its size). */
  maxBytes: number;
  /** Bytes of one item's JSON at most: what a one-item page may weigh. */
  maxItemBytes: number;
}

/** The list answer of `collection` for `x`, `limit` items from `offset`. */
export async function listAnswer(
  d: CrudListDeps,
  x: Exchange,
  collection: string,
  limit: number,
  offset: number,
): Promise<Answer> {
  // The most the page can weigh: the bound (or one item alone, when items may be larger), and no
  // more than `limit` items of the largest size.
  const reserve = Math.min(Math.max(d.maxBytes, d.maxItemBytes + 2), limit * (d.maxItemBytes + 1) + 1);
  const ticket = d.budget.take(x.request.ip, reserve);
  if (typeof ticket === 'string') {
    const message =
      ticket === 'ip'
        ? 'This client already has the most CRUD list answers being written that CRUD_LIST_BUFFERED_BYTES_PER_IP allows; read them, or retry later.'
        : 'The server already has the most CRUD list answers being written that CRUD_LIST_BUFFERED_BYTES allows; retry later.';
    return {
      status: 429,
      headers: { 'content-type': JSON_TYPE, 'retry-after': String(CRUD_LIST_RETRY_AFTER_S) },
      body: JSON.stringify(errorBody('rate_limited', message)),
    };
  }
  try {
    const page = await d.store.listCrudPage(x.endpoint.record.name, collection, limit, offset, d.maxBytes);
    const body = `[${page.texts.join(',')}]`;
    ticket.shrink(Buffer.byteLength(body));
    const headers: Answer['headers'] = { 'content-type': JSON_TYPE, 'x-total-count': String(page.total) };
    const next = offset + page.texts.length;
    if (page.texts.length > 0 && next < page.total)
      headers['link'] = `<?limit=${limit}&offset=${next}>; rel="next"`;
    return { status: 200, headers, body, onWrite: ticket.attach };
  } catch (err) {
    ticket.release();
    throw err;
  }
}
