/**
 * Commands on an endpoint's response blobs (SPEC §4): store one within the quotas, delete one no rule
 * answers with. Each is announced as `blobs`.
 */
import { AppError } from '../errors.js';
import { blobsOf, ruleFromRecord } from '../mock/index.js';
import type { BlobRecord, BlobRefusal, EndpointRecord } from '../store/index.js';
import { changed, type AdminDeps } from './changed.js';

/** The 413 for a blob of `size` bytes that a quota refused, naming the quota and what is held. */
function quotaRefusal(endpoint: string, size: number, r: BlobRefusal): AppError {
  const whose = r.why === 'endpoint_quota' ? `Endpoint "${endpoint}"'s blobs` : 'The blobs of all endpoints';
  const setting = r.why === 'endpoint_quota' ? 'BLOB_QUOTA' : 'BLOB_QUOTA_TOTAL';
  return new AppError(
    'payload_too_large',
    `${whose} hold ${r.used} bytes; ${size} more would pass ${setting} (${r.quota} bytes). Delete blobs first.`,
    { details: [{ path: '/file', message: `Over ${setting}`, received: `${size} bytes` }] },
  );
}

/**
 * Stores a blob within BLOB_QUOTA and BLOB_QUOTA_TOTAL (the API's upload and a configuration file's
 * blobs alike): a blob that would pass either is refused before it is written, 413 naming the quota.
 * False (and nothing announced) when the endpoint already has a blob of that name.
 */
export async function storeBlob(
  deps: Pick<AdminDeps, 'config' | 'store' | 'events' | 'fence'>,
  blob: BlobRecord,
): Promise<boolean> {
  const quota = { endpoint: deps.config.blobQuota, total: deps.config.blobQuotaTotal };
  const written = await deps.store.changeEndpoint(blob.endpoint, (tx) => tx.putBlob(blob, quota), {
    unchanged: (put) => put !== true,
  });
  const put = written.result;
  if (typeof put === 'object') throw quotaRefusal(blob.endpoint, blob.size, put);
  if (put) await changed(deps, blob.endpoint, 'blobs', written);
  return put;
}

/** Deletes the blob `name`: 409 while a rule answers with it, 404 when the endpoint has none. */
export async function deleteBlob(
  deps: Pick<AdminDeps, 'store' | 'events' | 'fence'>,
  ep: EndpointRecord,
  name: string,
): Promise<void> {
  const users = (await deps.store.listRules(ep.name))
    .map(ruleFromRecord)
    .filter((r) => blobsOf(r).includes(name));
  if (users.length > 0)
    throw new AppError(
      'conflict',
      `The blob "${name}" is answered by rule ${users.map((r) => r.id).join(', ')}; change or delete the rule first.`,
    );
  const written = await deps.store.changeEndpoint(ep.name, (tx) => tx.deleteBlob(ep.name, name), {
    unchanged: (deleted) => !deleted,
  });
  if (!written.result) throw new AppError('not_found', `Endpoint "${ep.name}" has no blob "${name}".`);
  await changed(deps, ep.name, 'blobs', written);
}
