/**
 * gRPC server reflection (SPEC §13), v1 and v1alpha: `grpc.reflection.*.ServerReflection/
 * ServerReflectionInfo` answered from an endpoint's own descriptors, so `grpcurl` and Postman list
 * and call its services without a local copy of the protos.
 *
 * Invariants: one ServerReflectionResponse per request, in order; a lookup that finds nothing is an
 * `error_response` NOT_FOUND in the stream (the call goes on); the call ends OK when the client
 * half-closes, or with the status of a CallError the request stream throws. Files are answered with
 * their transitive dependencies, each file once per answer.
 */
import {
  createFileRegistry,
  fromBinary,
  fromJson,
  toBinary,
  toJson,
  type DescFile,
  type DescMessage,
  type FileRegistry,
  type JsonObject,
  type JsonValue,
} from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { compileProtoSources } from './compile.js';
import type { EndpointDescriptors } from './descriptors.js';
import { REFLECTION_V1ALPHA_PROTO, REFLECTION_V1_PROTO } from './protos/reflection.js';
import { CallError, GrpcStatus, type GrpcCall } from './types.js';
import { REFLECTION_PATHS, REFLECTION_SERVICE } from './constants.js';

const SERVICE = REFLECTION_SERVICE;

export { REFLECTION_PATHS };

let compiled: FileRegistry | undefined;

/** The registry of the bundled reflection protos (both versions), compiled once. */
function reflectionRegistry(): FileRegistry {
  compiled ??= createFileRegistry(
    fromBinary(
      FileDescriptorSetSchema,
      compileProtoSources([
        { name: 'grpc/reflection/v1/reflection.proto', text: REFLECTION_V1_PROTO },
        { name: 'grpc/reflection/v1alpha/reflection.proto', text: REFLECTION_V1ALPHA_PROTO },
      ]).descriptorSet,
    ),
  );
  return compiled;
}

function messageOf(registry: FileRegistry, name: string): DescMessage {
  const desc = registry.getMessage(name);
  if (!desc) throw new Error(`${name} is missing from the bundled reflection protos`);
  return desc;
}

/** The file and its transitive dependencies, the file first, each once, serialized. */
function withDependencies(file: DescFile): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const todo = [file];
  while (todo.length > 0) {
    const f = todo.shift() as DescFile;
    if (seen.has(f.proto.name)) continue;
    seen.add(f.proto.name);
    out.push(Buffer.from(toBinary(FileDescriptorProtoSchema, f.proto)).toString('base64'));
    todo.push(...f.dependencies);
  }
  return out;
}

/** The file that declares `symbol` (a service, method, message, field, enum or extension), if any. */
function fileOfSymbol(registry: FileRegistry, symbol: string): DescFile | undefined {
  const desc = registry.get(symbol);
  if (desc) return desc.file;
  const dot = symbol.lastIndexOf('.');
  if (dot < 0) return undefined;
  const parent = registry.get(symbol.slice(0, dot));
  const member = symbol.slice(dot + 1);
  if (parent?.kind === 'service' && parent.methods.some((m) => m.name === member)) return parent.file;
  if (parent?.kind === 'message' && parent.fields.some((f) => f.name === member)) return parent.file;
  if (parent?.kind === 'enum' && parent.values.some((v) => v.name === member)) return parent.file;
  return undefined;
}

type Answer = JsonObject;

const notFound = (what: string): Answer => ({
  error_response: { error_code: GrpcStatus.NOT_FOUND, error_message: `${what} not found` },
});

/** The answer part of one request (the `message_response` oneof), as proto-named JSON. */
function answer(req: JsonObject, d: EndpointDescriptors, registries: FileRegistry[]): Answer {
  const files = (file: DescFile | undefined, what: string): Answer =>
    file ? { file_descriptor_response: { file_descriptor_proto: withDependencies(file) } } : notFound(what);
  if (typeof req['list_services'] === 'string') {
    const services = [...d.services(), SERVICE.v1, SERVICE.v1alpha].map((name) => ({ name }));
    return { list_services_response: { service: services } };
  }
  if (typeof req['file_by_filename'] === 'string') {
    const name = req['file_by_filename'];
    return files(registries.map((r) => r.getFile(name)).find(Boolean), `File "${name}"`);
  }
  if (typeof req['file_containing_symbol'] === 'string') {
    const symbol = req['file_containing_symbol'];
    return files(registries.map((r) => fileOfSymbol(r, symbol)).find(Boolean), `Symbol "${symbol}"`);
  }
  const ext = req['file_containing_extension'];
  if (typeof ext === 'object' && ext !== null && !Array.isArray(ext)) {
    const type = typeof ext['containing_type'] === 'string' ? ext['containing_type'] : '';
    const no = Number(ext['extension_number'] ?? 0);
    for (const r of registries) {
      const message = r.getMessage(type);
      const found = message ? r.getExtensionFor(message, no) : undefined;
      if (found) return files(found.file, '');
    }
    return notFound(`Extension ${no} of "${type}"`);
  }
  if (typeof req['all_extension_numbers_of_type'] === 'string') {
    const type = req['all_extension_numbers_of_type'];
    const r = registries.find((x) => x.getMessage(type));
    if (!r) return notFound(`Type "${type}"`);
    const numbers: number[] = [];
    for (const desc of r)
      if (desc.kind === 'extension' && desc.extendee.typeName === type) numbers.push(desc.number);
    return { all_extension_numbers_response: { base_type_name: type, extension_number: numbers } };
  }
  return {
    error_response: {
      error_code: GrpcStatus.INVALID_ARGUMENT,
      error_message: 'The request asks for nothing known',
    },
  };
}

/**
 * Serves one ServerReflectionInfo call (bidirectional): one response per request message, then
 * `end({ code: 0 })` when the client half-closes.
 */
export async function serveReflection(
  call: GrpcCall,
  d: EndpointDescriptors,
  version: 'v1' | 'v1alpha',
): Promise<void> {
  const reflection = reflectionRegistry();
  const pkg = `grpc.reflection.${version}`;
  const requestDesc = messageOf(reflection, `${pkg}.ServerReflectionRequest`);
  const responseDesc = messageOf(reflection, `${pkg}.ServerReflectionResponse`);
  const registries = [d.registry, reflection];
  try {
    for await (const bytes of call.messages()) {
      if (call.signal.aborted) return;
      let req: JsonObject;
      try {
        req = toJson(requestDesc, fromBinary(requestDesc, bytes), { useProtoFieldName: true }) as JsonObject;
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        call.end({ code: GrpcStatus.INVALID_ARGUMENT, message: `Not a ServerReflectionRequest: ${why}` });
        return;
      }
      const json: JsonValue = {
        valid_host: typeof req['host'] === 'string' ? req['host'] : '',
        original_request: req,
        ...answer(req, d, registries),
      };
      await call.send(toBinary(responseDesc, fromJson(responseDesc, json)));
    }
    call.end({ code: GrpcStatus.OK });
  } catch (err) {
    if (err instanceof CallError) call.end({ code: err.code, message: err.message });
    else throw err;
  }
}
