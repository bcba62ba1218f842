/**
 * An endpoint's descriptors at run time (SPEC §13): the methods of its uploaded descriptor set by
 * path, and its messages between protobuf binary and proto3 JSON.
 *
 * JSON choices, the same everywhere a message is shown or read: field names are the canonical
 * lowerCamelCase JSON names (`user_id` is `userId`; reading accepts both, as the proto3 mapping
 * requires); fields with implicit presence are written even when they hold their default
 * (`alwaysEmitImplicit`), so a rule on `count == 0` or on an empty string sees the field; enums are
 * written by name; unknown JSON keys are refused when encoding an answer. The registry used for
 * `Any` holds the endpoint's files and the bundled google/protobuf files.
 */
import {
  createFileRegistry,
  createRegistry,
  fromBinary,
  fromJson,
  toBinary,
  toJson,
  type DescFile,
  type DescMessage,
  type FileRegistry,
  type JsonValue,
  type Registry,
} from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { CallError, GrpcStatus, type CallType, type MethodInfo } from './types.js';
import { BUNDLED_FILES } from './compile-limits.js';
import { generateMessage } from './generate-message.js';

/** How deep a message may nest when decoded from binary or JSON (the library's own guard). */
export const GRPC_RECURSION_LIMIT = 100;

/** An answer as it goes out, and as the history shows it. */
export interface EncodedAnswer {
  /** The protobuf binary sent. */
  readonly bytes: Uint8Array;
  /**
   * The canonical proto3 JSON of the message that was encoded (toJson of the message object built
   * from the answer, not the answer as written: int64 as strings, implicit defaults written, names
   * in lowerCamelCase), so that the history need not decode the bytes again. It is what a decode of
   * `bytes` gives, but for a `float` field: shown as written (0.1, as protojson prints a float32), not
   * as the double nearest the float32 sent (0.10000000149011612).
   */
  readonly json: JsonValue;
}

/** What an endpoint serves from: built once per upload by `loadDescriptors`. */
export interface EndpointDescriptors {
  /** The endpoint's files (for reflection: `getFile`, `get`, `getService` …). */
  readonly registry: FileRegistry;
  /** The endpoint's files plus the bundled google/protobuf ones: resolves `Any` in JSON. */
  readonly jsonRegistry: Registry;
  /** Methods by path, `/pkg.Svc/Method`. */
  readonly methods: ReadonlyMap<string, MethodInfo>;
  /** Fully qualified service names, sorted. */
  services(): string[];
  /** The request message of the method at `path` as JSON. CallError UNIMPLEMENTED / INTERNAL. */
  decodeRequest(path: string, bytes: Uint8Array): JsonValue;
  /** The answer `json` as the method's output message. CallError INTERNAL naming the field that does not fit. */
  encodeResponse(path: string, json: JsonValue): Uint8Array;
  /** As encodeResponse, with the message's canonical JSON beside its bytes (for the history). */
  encodeAnswer(path: string, json: JsonValue): EncodedAnswer;
  /** A generated answer for the method's output type (always encodes); the same `seed`, the same answer. */
  generateResponse(path: string, seed?: number): JsonValue;
  /** Any message type of the registry, binary to JSON (CallError INTERNAL when it does not decode). */
  messageToJson(typeName: string, bytes: Uint8Array): JsonValue;
  /** Any message type of the registry, JSON to binary (CallError INTERNAL naming the field). */
  messageFromJson(typeName: string, json: JsonValue): Uint8Array;
}

const CALL_TYPE: Record<string, CallType> = {
  unary: 'unary',
  server_streaming: 'server_streaming',
  client_streaming: 'client_streaming',
  bidi_streaming: 'bidirectional_streaming',
};

/** Every method of every service in `registry`, services in the order of their files. */
export function methodInfosOf(registry: FileRegistry): MethodInfo[] {
  const out: MethodInfo[] = [];
  for (const file of registry.files)
    for (const service of file.services)
      for (const m of service.methods)
        out.push({
          service: service.typeName,
          method: m.name,
          name: `${service.typeName}/${m.name}`,
          callType: CALL_TYPE[m.methodKind] ?? 'unary',
          inputType: m.input.typeName,
          outputType: m.output.typeName,
        });
  return out;
}

const isObject = (v: unknown): v is Record<string, JsonValue> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Where in `json` the first value that does not fit `desc` is, as the keys leading to it
 * (`["tagsById", "a", "label"]`): each key is tried alone, then the failing one is searched in turn.
 * Only run on the failure path; bounded by GRPC_RECURSION_LIMIT levels.
 */
function badPath(desc: DescMessage, json: JsonValue, registry: Registry, depth = 0): string[] {
  if (!isObject(json) || depth > GRPC_RECURSION_LIMIT || desc.typeName.startsWith('google.protobuf.'))
    return [];
  const fits = (d: DescMessage, v: JsonValue): boolean => {
    try {
      fromJson(d, v, { registry, recursionLimit: GRPC_RECURSION_LIMIT });
      return true;
    } catch {
      return false;
    }
  };
  for (const [k, v] of Object.entries(json)) {
    if (fits(desc, { [k]: v })) continue;
    const field = desc.fields.find((f) => f.jsonName === k || f.name === k);
    if (field?.fieldKind === 'message') return [k, ...badPath(field.message, v, registry, depth + 1)];
    if (field?.fieldKind === 'list' && field.listKind === 'message' && Array.isArray(v)) {
      const i = v.findIndex((item) => !fits(field.message, item));
      if (i >= 0) return [k, String(i), ...badPath(field.message, v[i] ?? null, registry, depth + 1)];
    }
    if (field?.fieldKind === 'map' && field.mapKind === 'message' && isObject(v)) {
      const entry = Object.entries(v).find(([, item]) => !fits(field.message, item));
      if (entry) return [k, entry[0], ...badPath(field.message, entry[1], registry, depth + 1)];
    }
    return [k];
  }
  return [];
}

/** The message of a fromJson failure, said as the answer not fitting `type`, naming the field. */
function doesNotFit(desc: DescMessage, json: JsonValue, registry: Registry, err: unknown): string {
  const type = desc.typeName;
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : undefined;
  const text = err instanceof Error ? err.message : String(err);
  const path = badPath(desc, json, registry);
  const unknown = /^cannot decode message \S+ from JSON: key "(.*)" is unknown$/.exec(text);
  if (unknown && path.length > 0)
    return `The answer does not fit ${type}: field "${path.join('.')}" is not defined`;
  const reason = cause?.message ?? text.replace(/^cannot decode (message|field) \S+ from JSON: /, '');
  if (path.length > 0) return `The answer does not fit ${type}: field "${path.join('.')}": ${reason}`;
  return `The answer does not fit ${type}: ${reason}`;
}

class Descriptors implements EndpointDescriptors {
  readonly jsonRegistry: Registry;
  readonly methods: ReadonlyMap<string, MethodInfo>;

  constructor(readonly registry: FileRegistry) {
    const extra: DescFile[] = [...BUNDLED_FILES.values()].filter((f) => !registry.getFile(f.proto.name));
    this.jsonRegistry = createRegistry(registry, ...extra);
    this.methods = new Map(methodInfosOf(registry).map((m) => [`/${m.name}`, m]));
  }

  services(): string[] {
    return [...new Set([...this.methods.values()].map((m) => m.service))].sort();
  }

  private method(path: string): MethodInfo {
    const m = this.methods.get(path);
    if (!m) throw new CallError(GrpcStatus.UNIMPLEMENTED, `Method ${path.replace(/^\//, '')} is not defined`);
    return m;
  }

  private message(typeName: string): DescMessage {
    const desc = this.jsonRegistry.getMessage(typeName);
    if (!desc) throw new CallError(GrpcStatus.INTERNAL, `Message type ${typeName} is not defined`);
    return desc;
  }

  messageToJson(typeName: string, bytes: Uint8Array): JsonValue {
    const desc = this.message(typeName);
    let msg;
    try {
      msg = fromBinary(desc, bytes, { recursionLimit: GRPC_RECURSION_LIMIT });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new CallError(GrpcStatus.INTERNAL, `The message does not decode as ${typeName}: ${why}`);
    }
    try {
      return toJson(desc, msg, { registry: this.jsonRegistry, alwaysEmitImplicit: true });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new CallError(GrpcStatus.INTERNAL, `The message ${typeName} has no JSON form: ${why}`);
    }
  }

  messageFromJson(typeName: string, json: JsonValue): Uint8Array {
    return this.encode(this.message(typeName), json).bytes;
  }

  /** `json` as a message of `desc` and its binary; CallError INTERNAL naming the field that does not fit. */
  private encode(desc: DescMessage, json: JsonValue) {
    try {
      const msg = fromJson(desc, json, { registry: this.jsonRegistry, recursionLimit: GRPC_RECURSION_LIMIT });
      return { msg, bytes: toBinary(desc, msg) };
    } catch (err) {
      throw new CallError(GrpcStatus.INTERNAL, doesNotFit(desc, json, this.jsonRegistry, err));
    }
  }

  encodeAnswer(path: string, json: JsonValue): EncodedAnswer {
    const typeName = this.method(path).outputType;
    const desc = this.message(typeName);
    const { msg, bytes } = this.encode(desc, json);
    try {
      return { bytes, json: toJson(desc, msg, { registry: this.jsonRegistry, alwaysEmitImplicit: true }) };
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new CallError(GrpcStatus.INTERNAL, `The message ${typeName} has no JSON form: ${why}`);
    }
  }

  decodeRequest(path: string, bytes: Uint8Array): JsonValue {
    return this.messageToJson(this.method(path).inputType, bytes);
  }

  encodeResponse(path: string, json: JsonValue): Uint8Array {
    return this.messageFromJson(this.method(path).outputType, json);
  }

  generateResponse(path: string, seed?: number): JsonValue {
    return generateMessage(this.message(this.method(path).outputType), seed);
  }
}

/**
 * The descriptors of a serialized FileDescriptorSet (a CompiledUpload's `descriptorSet`). Throws
 * when the bytes are not a set that links: they come from `compileUpload`, so that is a bug or a
 * damaged store, not a user error.
 */
export function loadDescriptors(descriptorSet: Uint8Array): EndpointDescriptors {
  return new Descriptors(createFileRegistry(fromBinary(FileDescriptorSetSchema, descriptorSet)));
}
