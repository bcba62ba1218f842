/**
 * gRPC descriptors as an endpoint's stored document (SPEC §13): the row an upload stores (the
 * descriptor set in base64, its methods as `operations`), what the API shows of it (services with
 * their methods), and the descriptor set's bytes for the serving code, read once per change of the
 * endpoint and kept beside its cached record as the OpenAPI step keeps its compiled document.
 * Invariant: an endpoint whose spec is OpenAPI has no descriptors (undefined), and the other way round.
 */
import { RecordMemo } from '../endpoint/index.js';
import type { EndpointRecord, Json, SpecInfo, SpecRecord, Store } from '../store/index.js';
import type { CompiledUpload } from './compile.js';
import type { CallType, MethodInfo } from './types.js';

/** One service as `GET …/specs` lists it. */
export interface ServiceView {
  name: string;
  methods: { name: string; callType: CallType; inputType: string; outputType: string }[];
}

/** What `GET …/specs` and the finished job show of gRPC descriptors. */
export interface GrpcSpecView {
  syntax: string;
  files: string[];
  services: ServiceView[];
}

/** The services of `methods`, in the order they first appear, each with its methods in order. */
export function servicesOf(methods: readonly MethodInfo[]): ServiceView[] {
  const byName = new Map<string, ServiceView>();
  for (const m of methods) {
    let s = byName.get(m.service);
    if (!s) byName.set(m.service, (s = { name: m.service, methods: [] }));
    s.methods.push({
      name: m.method,
      callType: m.callType,
      inputType: m.inputType,
      outputType: m.outputType,
    });
  }
  return [...byName.values()];
}

/** The row a gRPC upload's job stores for `endpoint`. */
export function grpcSpecRecord(
  endpoint: string,
  jobId: string,
  compiled: CompiledUpload,
  createdAt: number,
): SpecRecord {
  return {
    endpoint,
    type: 'grpc',
    jobId,
    intelligenceMock: false,
    // The first service's fully qualified name (an upload without a service is refused).
    title: compiled.methods[0]?.service ?? '',
    version: '',
    specVersion: compiled.syntax,
    operations: compiled.methods.map((m) => ({ ...m })),
    files: compiled.files,
    size: compiled.descriptorSet.byteLength,
    createdAt,
    document: Buffer.from(compiled.descriptorSet).toString('base64'),
  };
}

/** What the API shows of a compiled upload (the job's result). */
export function grpcUploadView(compiled: CompiledUpload): Json {
  const view: GrpcSpecView = {
    syntax: compiled.syntax,
    files: compiled.files,
    services: servicesOf(compiled.methods),
  };
  return view as unknown as Json;
}

/** What the API shows of a stored gRPC spec. */
export function grpcSpecView(spec: SpecInfo): GrpcSpecView {
  return {
    syntax: spec.specVersion,
    files: spec.files,
    services: servicesOf(spec.operations as unknown as MethodInfo[]),
  };
}

const descriptors = new RecordMemo<Uint8Array | undefined>();

async function load(
  ctx: { store: Pick<Store, 'getSpec'> },
  ep: EndpointRecord,
): Promise<Uint8Array | undefined> {
  const spec = await ctx.store.getSpec(ep.name);
  if (!spec || spec.type !== 'grpc') return undefined;
  return new Uint8Array(Buffer.from(spec.document, 'base64'));
}

/**
 * The endpoint's serialized FileDescriptorSet, or undefined when its spec is not gRPC (or it has
 * none). Read from the store once per version of the cached endpoint record: a new upload or a
 * deletion announces a change, which gives the endpoint a new record and so a fresh read.
 */
export function grpcSpecOf(
  ctx: { store: Pick<Store, 'getSpec'> },
  ep: EndpointRecord,
): Promise<Uint8Array | undefined> {
  return descriptors.get(ep, () => load(ctx, ep));
}
