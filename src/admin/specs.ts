/**
 * Commands on an endpoint's OpenAPI document (SPEC §7): upload one (validated off the event loop, then
 * stored and compiled by a job, src/oas/jobs.ts) and delete it. The upload is announced as `spec` when
 * the job has stored the document, not when it is accepted: until then the endpoint serves the old one.
 */
import { AppError } from '../errors.js';
import { startSpecJob, validateSpec, type OasDeps, type ValidSpec } from '../oas/index.js';
import { planOf } from '../plans.js';
import type { EndpointRecord, SpecJobRecord } from '../store/index.js';
import { changed, type AdminDeps } from './changed.js';

/** What an upload uses: the job compiles the stored document (through the endpoint cache) and logs. */
export type SpecDeps = Pick<AdminDeps, 'events' | 'fence'> & OasDeps;

/** 403 plan_limit unless the endpoint's plan includes OpenAPI mocking. */
export function refuseWithoutOpenapi(deps: Pick<AdminDeps, 'config'>, ep: EndpointRecord): void {
  const plan = planOf(deps.config, ep);
  if (!plan.openapi)
    throw new AppError('plan_limit', `The plan "${plan.name}" does not include OpenAPI mocking.`);
}

/**
 * Validates an OpenAPI document unless already validated (off the event loop; 400 with the parser's
 * findings) and starts the job that stores and compiles it; answers the QUEUED job.
 */
export async function uploadSpec(
  deps: SpecDeps,
  ep: EndpointRecord,
  document: string | ValidSpec,
  intelligenceMock: boolean,
): Promise<SpecJobRecord> {
  refuseWithoutOpenapi(deps, ep);
  const spec =
    typeof document === 'string'
      ? await validateSpec(document, { schemaBudget: deps.config.oasSchemaBudget })
      : document;
  return startSpecJob(deps, ep.name, spec, intelligenceMock, async (record) => {
    const written = await deps.store.changeEndpoint(ep.name, (tx) => tx.putSpec(record));
    await changed(deps, ep.name, 'spec', written);
  });
}

/** Deletes the endpoint's document; false (and nothing announced) when it has none. */
export async function deleteSpec(
  deps: Pick<AdminDeps, 'store' | 'events' | 'fence'>,
  ep: Pick<EndpointRecord, 'name'>,
): Promise<boolean> {
  const written = await deps.store.changeEndpoint(ep.name, (tx) => tx.deleteSpec(ep.name), {
    unchanged: (deleted) => !deleted,
  });
  if (!written.result) return false;
  await changed(deps, ep.name, 'spec', written);
  return true;
}
