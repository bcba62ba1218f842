/**
 * PROVISIONAL: stands in for the real compiler of gRPC uploads (written beside this branch, replacing
 * this file at merge) with the same signature. A `.proto` text is parsed with protobufjs and must be
 * self-contained (its imports are not resolved); a binary upload is read as a FileDescriptorSet with
 * @bufbuild/protobuf. Either way the answer lists the services and methods; a text upload's
 * `descriptorSet` is empty (the real compiler builds it). An upload with no service is refused.
 * Invariant: throws only AppError `validation_error` (with `details`) for a bad upload.
 */
import protobuf from 'protobufjs';
import { createFileRegistry, fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { AppError } from '../errors.js';
import type { CallType, MethodInfo } from './types.js';

/** Largest gRPC upload (a .proto or a descriptor set), in bytes: 2.5 MB (SPEC §13). */
export const GRPC_SPEC_LIMIT = 2.5 * 1024 * 1024;

/** What an upload compiles to: the descriptor set to store and what the API shows of it. */
export interface CompiledUpload {
  /** A serialized google.protobuf.FileDescriptorSet. */
  descriptorSet: Uint8Array;
  /** `proto3`, `proto2` or `editions`. */
  syntax: string;
  /** The .proto file names the descriptors came from. */
  files: string[];
  methods: MethodInfo[];
}

function refused(message: string, path = '/file'): AppError {
  return new AppError('validation_error', message, { details: [{ path, message }] });
}

function callTypeOf(clientStreaming: boolean, serverStreaming: boolean): CallType {
  if (clientStreaming) return serverStreaming ? 'bidirectional_streaming' : 'client_streaming';
  return serverStreaming ? 'server_streaming' : 'unary';
}

/** A protobufjs full name (`.pkg.Name`) without its leading dot. */
const bare = (name: string): string => name.replace(/^\./, '');

/** True when the bytes read as text (UTF-8 without NUL), as a .proto file does. */
function looksLikeText(data: Buffer): boolean {
  return !data.includes(0) && Buffer.from(data.toString('utf8'), 'utf8').equals(data);
}

/**
 * Whether the upload is .proto text: by its name when it says, else by its bytes. A descriptor set
 * starts with 0x0a (field 1, a file) and is often valid UTF-8 as well: one that decodes is binary.
 */
function isText(data: Buffer, name: string): boolean {
  if (/\.proto$/i.test(name)) return true;
  if (/\.(pb|binpb|desc|protoset)$/i.test(name)) return false;
  if (data[0] === 0x0a) {
    try {
      fromBinary(FileDescriptorSetSchema, data);
      return false;
    } catch {
      // not a descriptor set: text if it reads as text
    }
  }
  return looksLikeText(data);
}

function fromProtoText(text: string, filename: string): CompiledUpload {
  let parsed: protobuf.IParserResult;
  try {
    parsed = protobuf.parse(text, { keepCase: true });
    parsed.root.resolveAll();
  } catch (err) {
    throw refused(`The .proto file cannot be compiled: ${(err as Error).message}`);
  }
  const methods: MethodInfo[] = [];
  const visit = (ns: protobuf.NamespaceBase): void => {
    for (const obj of ns.nestedArray) {
      if (obj instanceof protobuf.Service) {
        const service = bare(obj.fullName);
        for (const m of obj.methodsArray)
          methods.push({
            service,
            method: m.name,
            name: `${service}/${m.name}`,
            callType: callTypeOf(m.requestStream === true, m.responseStream === true),
            inputType: bare(m.resolvedRequestType?.fullName ?? m.requestType),
            outputType: bare(m.resolvedResponseType?.fullName ?? m.responseType),
          });
      } else if (obj instanceof protobuf.Namespace) visit(obj);
    }
  };
  visit(parsed.root);
  const declared = /^\s*(?:syntax\s*=\s*["'](proto[23])["']|(edition)\s*=)/m.exec(text);
  const syntax = declared?.[1] ?? (declared?.[2] ? 'editions' : 'proto2');
  return { descriptorSet: new Uint8Array(), syntax, files: [filename], methods };
}

function fromDescriptorSet(data: Buffer): CompiledUpload {
  let files: string[];
  let syntax = 'proto3';
  const methods: MethodInfo[] = [];
  try {
    const set = fromBinary(FileDescriptorSetSchema, data);
    files = set.file.map((f) => f.name);
    syntax = set.file.at(-1)?.syntax || 'proto2';
    for (const file of createFileRegistry(set).files)
      for (const s of file.services)
        for (const m of s.methods)
          methods.push({
            service: s.typeName,
            method: m.name,
            name: `${s.typeName}/${m.name}`,
            callType: m.methodKind === 'bidi_streaming' ? 'bidirectional_streaming' : m.methodKind,
            inputType: m.input.typeName,
            outputType: m.output.typeName,
          });
  } catch (err) {
    throw refused(`The upload is neither a .proto file nor a descriptor set: ${(err as Error).message}`);
  }
  return { descriptorSet: new Uint8Array(data), syntax, files, methods };
}

/**
 * Compiles one upload: a `.proto` text or a serialized FileDescriptorSet. Throws AppError
 * `validation_error` (details `[{ path, message }]`) when it does not compile or defines no service.
 */
export function compileUpload(input: { data: Buffer; filename?: string }): CompiledUpload {
  if (input.data.length > GRPC_SPEC_LIMIT)
    throw new AppError('payload_too_large', `A gRPC upload is at most ${GRPC_SPEC_LIMIT} bytes.`);
  const name = input.filename ?? '';
  const compiled = isText(input.data, name)
    ? fromProtoText(input.data.toString('utf8'), name || 'upload.proto')
    : fromDescriptorSet(input.data);
  if (compiled.methods.length === 0)
    throw refused('The upload defines no service: a gRPC mock needs at least one service with a method.');
  return compiled;
}
