/**
 * An uploaded gRPC descriptor (SPEC §13) turned into what an endpoint serves from: a serialized
 * FileDescriptorSet holding every file it needs, and its methods. The upload is either `.proto` text
 * (compile-proto.ts) or a compiled descriptor set (`protoc --include_imports --descriptor_set_out`,
 * `buf build -o x.binpb`), told apart by the file name or, without one, by whether the bytes parse as
 * a FileDescriptorSet whose files have names.
 *
 * Invariants: the result always loads with `loadDescriptors` (the registry is built here once to
 * check it); a `google/protobuf/*` file an upload imports is taken from the bundled copies when the
 * upload lacks it; every refusal is an AppError('validation_error') naming the file (and line).
 */
import { AppError } from '../errors.js';
import { create, createFileRegistry, fromBinary, toBinary, type FileRegistry } from '@bufbuild/protobuf';
import {
  FileDescriptorSetSchema,
  type DescriptorProto,
  type FileDescriptorProto,
} from '@bufbuild/protobuf/wkt';
import type { MethodInfo } from './types.js';
import { BUNDLED_FILES, DEFAULT_SPEC_LIMITS, specError, type SpecLimits } from './compile-limits.js';
import { protoSourcesToFiles, type ProtoSource } from './compile-proto.js';
import { methodInfosOf } from './descriptors.js';

export {
  GRPC_SPEC_LIMIT,
  GRPC_SPEC_MAX_DEPTH,
  GRPC_SPEC_MAX_FIELDS,
  GRPC_SPEC_MAX_FILES,
  GRPC_SPEC_MAX_TYPES,
  type SpecLimits,
} from './compile-limits.js';

/** What an endpoint keeps of an upload. */
export interface CompiledUpload {
  /** A serialized google.protobuf.FileDescriptorSet, dependencies first, every dependency included. */
  descriptorSet: Uint8Array;
  /** `proto3`, `proto2` or `editions`: that of the (first) file that defines a service. */
  syntax: string;
  /** The names of the files in the set, dependencies first. */
  files: string[];
  /** Every method of every service in the set. */
  methods: MethodInfo[];
}

const SET_EXTENSIONS = /\.(pb|binpb|desc|protoset|bin)$/i;

/** The upload's file name as a descriptor names it: the last path segment, `upload.proto` if none. */
function protoName(filename: string | undefined): string {
  const base = (filename ?? '').split(/[\\/]/).pop() ?? '';
  return base === '' ? 'upload.proto' : base;
}

/**
 * Compiles an upload. Throws AppError('validation_error') for anything that cannot be served:
 * too large, not UTF-8 text nor a descriptor set, a syntax error, an unresolved import or type, a
 * set with missing dependencies, no service, or past one of the `limits` (SpecLimits, defaults the
 * GRPC_SPEC_* constants).
 */
export function compileUpload(
  input: { data: Buffer | Uint8Array; filename?: string },
  limits: Partial<SpecLimits> = {},
): CompiledUpload {
  const lim: SpecLimits = { ...DEFAULT_SPEC_LIMITS, ...limits };
  const name = protoName(input.filename);
  // The same refusal as the route's own limit (413), for a caller that did not check it first.
  if (input.data.byteLength > lim.bytes) {
    const message = `the upload is ${input.data.byteLength} bytes, more than the limit of ${lim.bytes}`;
    throw new AppError('payload_too_large', `${name}: ${message}`, { details: [{ path: name, message }] });
  }
  const byName = input.filename !== undefined && SET_EXTENSIONS.test(input.filename);
  const isProto = input.filename?.toLowerCase().endsWith('.proto') === true;
  const set = isProto ? undefined : asDescriptorSet(input.data, !byName);
  if (byName && !set)
    throw specError(
      name,
      undefined,
      'not a FileDescriptorSet (expected the output of protoc --descriptor_set_out or buf build)',
    );
  const files = set ?? protoSourcesToFiles([{ name, text: utf8(input.data, name) }], lim);
  return finish(files, name, lim);
}

/**
 * Compiles `.proto` sources that import each other (the bundled google/protobuf files resolve too):
 * the path for protos Mockingbird ships itself (google.rpc, reflection).
 */
export function compileProtoSources(
  sources: ProtoSource[],
  limits: Partial<SpecLimits> = {},
): CompiledUpload {
  const lim: SpecLimits = { ...DEFAULT_SPEC_LIMITS, ...limits };
  return finish(protoSourcesToFiles(sources, lim), sources[0]?.name ?? 'upload.proto', lim, false);
}

function utf8(data: Uint8Array, name: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw specError(name, undefined, 'neither UTF-8 .proto text nor a binary FileDescriptorSet');
  }
}

/**
 * The files of `data` if it is a FileDescriptorSet whose files all have names, else undefined;
 * recognised by content alone (`strict`), the names must also end in `.proto`, so text that happens
 * to parse as protobuf binary is not taken for a set.
 */
function asDescriptorSet(data: Uint8Array, strict: boolean): FileDescriptorProto[] | undefined {
  try {
    const set = fromBinary(FileDescriptorSetSchema, data);
    const bad = (n: string): boolean => n === '' || (strict && !n.endsWith('.proto'));
    if (set.file.length === 0 || set.file.some((f) => bad(f.name))) return undefined;
    return set.file;
  } catch {
    return undefined;
  }
}

/** Adds the bundled files the set imports but lacks, checks bounds and orders dependencies first. */
function complete(files: FileDescriptorProto[], lim: SpecLimits): FileDescriptorProto[] {
  const byName = new Map<string, FileDescriptorProto>();
  for (const f of files) {
    if (byName.has(f.name)) throw specError(f.name, undefined, 'the descriptor set holds this file twice');
    byName.set(f.name, f);
  }
  const ordered: FileDescriptorProto[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (root: FileDescriptorProto): void => {
    const stack: { file: FileDescriptorProto; next: number }[] = [{ file: root, next: 0 }];
    state.set(root.name, 'visiting');
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { file: FileDescriptorProto; next: number };
      const dep = top.file.dependency[top.next++];
      if (dep === undefined) {
        state.set(top.file.name, 'done');
        ordered.push(top.file);
        stack.pop();
        continue;
      }
      if (state.get(dep) === 'done') continue;
      if (state.get(dep) === 'visiting')
        throw specError(top.file.name, undefined, `import cycle through "${dep}"`);
      let file = byName.get(dep);
      if (!file) {
        const bundled = BUNDLED_FILES.get(dep);
        if (!bundled)
          throw specError(
            top.file.name,
            undefined,
            `imports "${dep}", which the descriptor set does not include (build it with --include_imports)`,
          );
        file = bundled.proto;
        byName.set(dep, file);
      }
      state.set(dep, 'visiting');
      stack.push({ file, next: 0 });
    }
  };
  for (const f of files) if (state.get(f.name) !== 'done') visit(f);
  if (ordered.length > lim.maxFiles)
    throw specError(ordered[0]?.name ?? '', undefined, `more than ${lim.maxFiles} files`);
  countDeclarations(ordered, lim);
  return ordered;
}

/** Counts types and fields without recursion (a set's nesting is untrusted too). */
function countDeclarations(files: FileDescriptorProto[], lim: SpecLimits): void {
  let types = 0;
  let fields = 0;
  for (const f of files) {
    types += f.enumType.length + f.service.length;
    fields += f.extension.length;
    for (const e of f.enumType) fields += e.value.length;
    for (const s of f.service) fields += s.method.length;
    const stack: { m: DescriptorProto; depth: number }[] = f.messageType.map((m) => ({ m, depth: 1 }));
    while (stack.length > 0) {
      const { m, depth } = stack.pop() as { m: DescriptorProto; depth: number };
      if (depth > lim.maxDepth)
        throw specError(f.name, undefined, `${m.name}: nesting deeper than ${lim.maxDepth} levels`);
      types += 1 + m.enumType.length;
      fields += m.field.length + m.extension.length;
      for (const e of m.enumType) fields += e.value.length;
      for (const n of m.nestedType) stack.push({ m: n, depth: depth + 1 });
      if (types > lim.maxTypes)
        throw specError(f.name, undefined, `more than ${lim.maxTypes} messages, enums and services`);
      if (fields > lim.maxFields)
        throw specError(f.name, undefined, `more than ${lim.maxFields} fields, enum values and methods`);
    }
    if (types > lim.maxTypes)
      throw specError(f.name, undefined, `more than ${lim.maxTypes} messages, enums and services`);
    if (fields > lim.maxFields)
      throw specError(f.name, undefined, `more than ${lim.maxFields} fields, enum values and methods`);
  }
}

function finish(
  files: FileDescriptorProto[],
  name: string,
  lim: SpecLimits,
  needService = true,
): CompiledUpload {
  const ordered = complete(files, lim);
  const set = create(FileDescriptorSetSchema, { file: ordered });
  let registry: FileRegistry;
  try {
    registry = createFileRegistry(set);
  } catch (err) {
    throw specError(
      name,
      undefined,
      `the descriptors do not link: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const methods = methodInfosOf(registry);
  if (needService && methods.length === 0)
    throw specError(name, undefined, 'The proto defines no service; a gRPC mock needs one');
  const withService = ordered.find((f) => f.service.length > 0) ?? ordered[ordered.length - 1];
  const syntax =
    withService?.syntax === '' || withService?.syntax === undefined ? 'proto2' : withService.syntax;
  return {
    descriptorSet: toBinary(FileDescriptorSetSchema, set),
    syntax,
    files: ordered.map((f) => f.name),
    methods,
  };
}
