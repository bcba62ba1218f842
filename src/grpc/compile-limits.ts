/**
 * The bounds of a gRPC descriptor upload (SPEC §13, §12) and the one shape of its refusals. An upload
 * is untrusted: its bytes, its nesting and its counts of declarations are each capped before the
 * work they would cost is done.
 */
import type { DescFile } from '@bufbuild/protobuf';
import {
  file_google_protobuf_any,
  file_google_protobuf_api,
  file_google_protobuf_descriptor,
  file_google_protobuf_duration,
  file_google_protobuf_empty,
  file_google_protobuf_field_mask,
  file_google_protobuf_source_context,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_type,
  file_google_protobuf_wrappers,
} from '@bufbuild/protobuf/wkt';
import { AppError } from '../errors.js';

import { GRPC_SPEC_LIMIT } from './constants.js';

export { GRPC_SPEC_LIMIT };
/** Most messages, enums and services in one upload, its dependencies included. */
export const GRPC_SPEC_MAX_TYPES = 10_000;
/** Most fields, enum values and methods in one upload, its dependencies included. */
export const GRPC_SPEC_MAX_FIELDS = 100_000;
/** Deepest nesting of declarations (`message` in `message` …, braces in `.proto` text). */
export const GRPC_SPEC_MAX_DEPTH = 32;
/** Most files in a descriptor set. */
export const GRPC_SPEC_MAX_FILES = 1_000;

/** The bounds one compilation runs under (the constants above unless a caller narrows them). */
export interface SpecLimits {
  bytes: number;
  maxTypes: number;
  maxFields: number;
  maxDepth: number;
  maxFiles: number;
}

export const DEFAULT_SPEC_LIMITS: SpecLimits = {
  bytes: GRPC_SPEC_LIMIT,
  maxTypes: GRPC_SPEC_MAX_TYPES,
  maxFields: GRPC_SPEC_MAX_FIELDS,
  maxDepth: GRPC_SPEC_MAX_DEPTH,
  maxFiles: GRPC_SPEC_MAX_FILES,
};

/** The `google/protobuf/*` files an upload may import without including them, by import name. */
export const BUNDLED_FILES: ReadonlyMap<string, DescFile> = new Map(
  [
    file_google_protobuf_any,
    file_google_protobuf_api,
    file_google_protobuf_descriptor,
    file_google_protobuf_duration,
    file_google_protobuf_empty,
    file_google_protobuf_field_mask,
    file_google_protobuf_source_context,
    file_google_protobuf_struct,
    file_google_protobuf_timestamp,
    file_google_protobuf_type,
    file_google_protobuf_wrappers,
  ].map((f) => [f.proto.name, f]),
);

/**
 * A refusal of an upload: 400 validation_error, one detail whose path is `file:line` (or the file
 * alone when there is no line) and whose message repeats where, so a client printing only the message
 * still sees it.
 */
export function specError(file: string, line: number | undefined, message: string): AppError {
  const where = line === undefined ? file : `${file}:${line}`;
  return new AppError('validation_error', `${where}: ${message}`, { details: [{ path: where, message }] });
}
