/**
 * Commands on an endpoint's document (SPEC §7, §13): upload an OpenAPI document or gRPC descriptors
 * (validated or compiled off the event loop, then stored by a job, src/oas/jobs.ts) and delete it.
 * An endpoint has one document: either kind replaces the other. The upload is announced as `spec` when
 * the job has stored the document, not when it is accepted: until then the endpoint serves the old one.
 */
import { AppError } from '../errors.js';
import { startSpecJob, startUploadJob, validateSpec, type OasDeps, type ValidSpec } from '../oas/index.js';
import { compileInWorker, grpcSpecOf, grpcSpecRecord, grpcUploadView } from '../grpc/index.js';
import { planOf } from '../plans.js';
import type { EndpointRecord, SpecJobRecord } from '../store/index.js';
import { changed, type AdminDeps } from './changed.js';

/** What an upload uses: the job compiles the stored document (through the endpoint cache) and logs. */
export type SpecDeps = Pick<AdminDeps, 'events' | 'fence'> & OasDeps;

/**
 * 403 plan_limit unless the endpoint's plan includes OpenAPI mocking. The plan's `openapi` flag also
 * covers gRPC descriptors (`what`: 'gRPC'): both are mocking from an uploaded spec.
 */
export function refuseWithoutOpenapi(
  deps: Pick<AdminDeps, 'config'>,
  ep: EndpointRecord,
  what: 'OpenAPI' | 'gRPC' = 'OpenAPI',
): void {
  const plan = planOf(deps.config, ep);
  if (!plan.openapi)
    throw new AppError(
      'plan_limit',
      what === 'OpenAPI'
        ? `The plan "${plan.name}" does not include OpenAPI mocking.`
        : `The plan "${plan.name}" does not include mocking from a spec (its "openapi" flag), gRPC included.`,
    );
}

/**
 * Validates an OpenAPI document unless already validated (off the event loop; 400 with the parser's
 * findings) and starts the job that stores and compiles it; answers the QUEUED job.
 */
export async function uploadSpec(
  deps: SpecDeps,
  ep: EndpointRecord,
  document: string | Uint8Array | ValidSpec,
  intelligenceMock: boolean,
): Promise<SpecJobRecord> {
  refuseWithoutOpenapi(deps, ep);
  const spec =
    typeof document === 'string' || document instanceof Uint8Array
      ? await validateSpec(document, {
          schemaBudget: deps.config.oasSchemaBudget,
          maxBytes: deps.config.oasSpecLimit,
        })
      : document;
  return startSpecJob(deps, ep.name, spec, intelligenceMock, async (record) => {
    const written = await deps.store.changeEndpoint(ep.name, (tx) => tx.putSpec(record));
    await changed(deps, ep.name, 'spec', written);
  });
}

/**
 * Compiles a gRPC upload (a .proto or a descriptor set) off the event loop (400 validation_error when
 * it does not compile or defines no service) and starts the job that stores it in place of the
 * endpoint's document; answers the QUEUED job (type `grpc`).
 */
export async function uploadGrpcSpec(
  deps: SpecDeps,
  ep: EndpointRecord,
  upload: { data: Buffer; filename?: string },
): Promise<SpecJobRecord> {
  refuseWithoutOpenapi(deps, ep, 'gRPC');
  const compiled = await compileInWorker(upload);
  const n = compiled.methods.length;
  const methods = `${n} method${n === 1 ? '' : 's'}`;
  return startUploadJob(deps, ep.name, {
    type: 'grpc',
    queued: `The descriptors compiled; their ${methods} ${n === 1 ? 'is' : 'are'} queued for mocking.`,
    processing: `Storing the descriptors of ${methods}.`,
    noun: 'gRPC spec',
    async run(job) {
      const record = grpcSpecRecord(ep.name, job.id, compiled, deps.now());
      const written = await deps.store.changeEndpoint(ep.name, (tx) => tx.putSpec(record));
      await changed(deps, ep.name, 'spec', written);
      // Read now, so that the first call after COMPLETED finds the descriptors ready.
      const current = await deps.endpoints.get(ep.name);
      if (current) await grpcSpecOf(deps, current.record);
      return {
        message: `${record.title}: ${methods} ${n === 1 ? 'is' : 'are'} mocked.`,
        result: grpcUploadView(compiled),
      };
    },
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
