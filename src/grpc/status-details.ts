/**
 * Rich error details (SPEC §13, a rule's `details`): a serialized `google.rpc.Status` for the
 * `grpc-status-details-bin` trailer, whose `details` are `Any`s built from JSON objects with an
 * `@type`: one of the google.rpc error types (bundled, compiled once at first use) or a message type
 * of the endpoint's own descriptors.
 *
 * Invariants: a detail is accepted only when its `@type` is known and its fields fit that type, so a
 * rule saved after `checkDetails` passed always encodes; `encodeStatus` fails with a CallError, never
 * with an unnamed library error.
 */
import {
  create,
  createFileRegistry,
  createRegistry,
  fromBinary,
  fromJson,
  toBinary,
  type DescMessage,
  type FileRegistry,
  type JsonValue,
  type Registry,
} from '@bufbuild/protobuf';
import { AnySchema, FileDescriptorSetSchema, type Any } from '@bufbuild/protobuf/wkt';
import { AppError } from '../errors.js';
import { compileProtoSources } from './compile.js';
import { BUNDLED_FILES } from './compile-limits.js';
import { ERROR_DETAILS_PROTO, STATUS_PROTO } from './protos/google-rpc.js';
import { CallError, GrpcStatus } from './types.js';

/** The `@type`s of the bundled google.rpc error details. */
export const GOOGLE_RPC_DETAIL_TYPES = [
  'google.rpc.ErrorInfo',
  'google.rpc.BadRequest',
  'google.rpc.RetryInfo',
  'google.rpc.DebugInfo',
  'google.rpc.QuotaFailure',
  'google.rpc.PreconditionFailure',
  'google.rpc.RequestInfo',
  'google.rpc.ResourceInfo',
  'google.rpc.Help',
  'google.rpc.LocalizedMessage',
] as const;

/** Most details in one status. */
export const GRPC_MAX_STATUS_DETAILS = 16;

const TYPE_PREFIX = 'type.googleapis.com/';

let bundled: { registry: FileRegistry; status: DescMessage } | undefined;

/** The registry of google/rpc/status.proto and error_details.proto (and what they import). */
export function googleRpcRegistry(): { registry: FileRegistry; status: DescMessage } {
  if (!bundled) {
    const compiled = compileProtoSources([
      { name: 'google/rpc/status.proto', text: STATUS_PROTO },
      { name: 'google/rpc/error_details.proto', text: ERROR_DETAILS_PROTO },
    ]);
    const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, compiled.descriptorSet));
    const status = registry.getMessage('google.rpc.Status');
    if (!status) throw new Error('google.rpc.Status is missing from the bundled protos');
    bundled = { registry, status };
  }
  return bundled;
}

class DetailError extends Error {
  constructor(
    readonly index: number,
    message: string,
  ) {
    super(message);
  }
}

function toAnys(details: readonly JsonValue[], endpoint: Registry | undefined): Any[] {
  if (details.length > GRPC_MAX_STATUS_DETAILS)
    throw new DetailError(GRPC_MAX_STATUS_DETAILS, `more than ${GRPC_MAX_STATUS_DETAILS} details`);
  const rpc = googleRpcRegistry().registry;
  const extra = [...BUNDLED_FILES.values()];
  const registry = endpoint ? createRegistry(rpc, endpoint, ...extra) : createRegistry(rpc, ...extra);
  return details.map((detail, i) => {
    if (typeof detail !== 'object' || detail === null || Array.isArray(detail))
      throw new DetailError(i, 'must be an object with an "@type"');
    const typeUrl = detail['@type'];
    if (typeof typeUrl !== 'string' || typeUrl === '')
      throw new DetailError(i, `must have an "@type" such as "${TYPE_PREFIX}google.rpc.ErrorInfo"`);
    const typeName = typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
    if (!registry.getMessage(typeName))
      throw new DetailError(
        i,
        `unknown @type "${typeUrl}": use one of the google.rpc error types (${GOOGLE_RPC_DETAIL_TYPES.join(', ')}) or a message of the endpoint's descriptors`,
      );
    try {
      return fromJson(AnySchema, detail, { registry });
    } catch (err) {
      const why = (err instanceof Error && err.cause instanceof Error ? err.cause : err) as Error;
      throw new DetailError(i, `does not fit ${typeName}: ${why.message.replace(/^cannot decode /, '')}`);
    }
  });
}

/**
 * A serialized `google.rpc.Status`. `registry` (an endpoint's `jsonRegistry`) adds its message types
 * to the google.rpc ones a detail's `@type` may name. Throws CallError INTERNAL naming the detail
 * that has an unknown `@type` or does not fit it.
 */
export function encodeStatus(
  code: number,
  message: string,
  details: readonly JsonValue[],
  registry?: Registry,
): Uint8Array {
  let anys: Any[];
  try {
    anys = toAnys(details, registry);
  } catch (err) {
    if (err instanceof DetailError)
      throw new CallError(GrpcStatus.INTERNAL, `The status detail #${err.index + 1} ${err.message}`);
    throw err;
  }
  const { status } = googleRpcRegistry();
  return toBinary(status, create(status, { code, message, details: anys }));
}

/**
 * Checks a rule's details when it is saved: AppError('validation_error') whose detail path is
 * `${pointer}/${index}` for the first detail that would not encode.
 */
export function checkDetails(details: readonly JsonValue[], registry?: Registry, pointer = '/details'): void {
  try {
    toAnys(details, registry);
  } catch (err) {
    if (!(err instanceof DetailError)) throw err;
    const path = `${pointer}/${err.index}`;
    throw new AppError('validation_error', `${path} ${err.message}`, {
      details: [{ path, message: err.message }],
    });
  }
}
