/**
 * `.proto` text to FileDescriptorProtos. protobufjs parses each file (proto-parse.ts); the
 * descriptors are then built here from its reflection objects rather than with its `ext/descriptor`,
 * so that map entries, proto3 `optional` (synthetic oneofs, after the real ones), groups and the
 * file each declaration belongs to are built as protoc builds them. Type names
 * are resolved here too, by protobuf's scoping rules, against the uploaded files and the well-known
 * `google/protobuf/*` files that @bufbuild/protobuf ships.
 *
 * Invariants: every refusal is an AppError('validation_error') whose details name the file and, where
 * there is one, the line; the work is bounded before parsing (brace nesting) and after (counts).
 */
import protobuf from 'protobufjs';
import type { Enum, Field, MapField, Method, Namespace, ReflectionObject, Service, Type } from 'protobufjs';
import { create, type DescMessage } from '@bufbuild/protobuf';
import {
  DescriptorProtoSchema,
  DescriptorProto_ExtensionRangeSchema,
  DescriptorProto_ReservedRangeSchema,
  EnumDescriptorProto_EnumReservedRangeSchema,
  EnumDescriptorProtoSchema,
  FieldDescriptorProtoSchema,
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as FType,
  FileDescriptorProtoSchema,
  ServiceDescriptorProtoSchema,
  type DescriptorProto,
  type EnumDescriptorProto,
  type FieldDescriptorProto,
  type FileDescriptorProto,
  type ServiceDescriptorProto,
} from '@bufbuild/protobuf/wkt';
import { BUNDLED_FILES, specError, type SpecLimits } from './compile-limits.js';
import { escapeRe, lineOf, parseOne, type Parsed, type ProtoSource } from './proto-parse.js';

export type { ProtoSource } from './proto-parse.js';

interface Symbol {
  kind: 'message' | 'enum' | 'service';
  file: string;
}

const SCALARS: Record<string, FType> = {
  double: FType.DOUBLE,
  float: FType.FLOAT,
  int64: FType.INT64,
  uint64: FType.UINT64,
  int32: FType.INT32,
  fixed64: FType.FIXED64,
  fixed32: FType.FIXED32,
  bool: FType.BOOL,
  string: FType.STRING,
  bytes: FType.BYTES,
  uint32: FType.UINT32,
  sfixed32: FType.SFIXED32,
  sfixed64: FType.SFIXED64,
  sint32: FType.SINT32,
  sint64: FType.SINT64,
};

/** File options kept from the text (custom options, in parentheses, are not). */
const FILE_OPTIONS = [
  'java_package',
  'java_outer_classname',
  'java_multiple_files',
  'go_package',
  'csharp_namespace',
  'objc_class_prefix',
  'php_namespace',
  'ruby_package',
  'swift_prefix',
  'cc_enable_arenas',
  'deprecated',
] as const;

const isType = (o: ReflectionObject): o is Type => o instanceof protobuf.Type;
const isEnum = (o: ReflectionObject): o is Enum => o instanceof protobuf.Enum;
const isService = (o: ReflectionObject): o is Service => o instanceof protobuf.Service;
const isExtension = (o: ReflectionObject): o is Field =>
  o instanceof protobuf.Field && o.extend !== undefined && !o.declaringField;
const fullName = (o: ReflectionObject): string => o.fullName.replace(/^\./, '');

/** The JSON name protoc derives: underscores dropped, the letter after each one upper-cased. */
function jsonNameOf(name: string): string {
  return name.replace(/_+(.?)/g, (_m, c: string) => c.toUpperCase());
}

/** protoc's map entry name: `tags_by_id` holds `TagsByIdEntry`. */
function mapEntryName(field: string): string {
  const camel = jsonNameOf(field);
  return camel.charAt(0).toUpperCase() + camel.slice(1) + 'Entry';
}

/** Converts parsed files to descriptors: one instance per upload. */
class Converter {
  readonly symbols = new Map<string, Symbol>();
  /** For each file, the files whose symbols it may use (itself and its transitive imports). */
  private readonly visible = new Map<string, Set<string>>();
  private count = { types: 0, fields: 0 };

  constructor(
    private readonly files: Parsed[],
    private readonly limits: SpecLimits,
  ) {}

  run(): FileDescriptorProto[] {
    const byName = new Map(this.files.map((f) => [f.source.name, f]));
    for (const f of this.files) {
      for (const imp of [...f.imports, ...f.weak]) {
        if (!byName.has(imp) && !BUNDLED_FILES.has(imp))
          throw specError(
            f.source.name,
            lineOf(f.source.text, new RegExp(`import\\s+(?:public\\s+|weak\\s+)?["']${escapeRe(imp)}["']`)),
            `import "${imp}" is neither in the upload nor one of the bundled google/protobuf files`,
          );
      }
    }
    for (const file of BUNDLED_FILES.values()) {
      for (const m of file.messages) this.addBundled(m, file.proto.name);
      for (const e of file.enums) this.symbols.set(e.typeName, { kind: 'enum', file: file.proto.name });
    }
    for (const f of this.files) this.declare(f, f.ns);
    for (const f of this.files) this.visible.set(f.source.name, this.closure(f.source.name, byName));
    return this.files.map((f) => this.file(f));
  }

  private addBundled(m: DescMessage, file: string): void {
    this.symbols.set(m.typeName, { kind: 'message', file });
    for (const e of m.nestedEnums) this.symbols.set(e.typeName, { kind: 'enum', file });
    for (const n of m.nestedMessages) this.addBundled(n, file);
  }

  private closure(name: string, byName: Map<string, Parsed>): Set<string> {
    const seen = new Set<string>([name]);
    const todo = [name];
    while (todo.length > 0) {
      const next = todo.pop() as string;
      const deps = byName.get(next)?.imports ?? BUNDLED_FILES.get(next)?.proto.dependency ?? [];
      for (const d of [...deps, ...(byName.get(next)?.weak ?? [])])
        if (!seen.has(d)) {
          seen.add(d);
          todo.push(d);
        }
    }
    return seen;
  }

  private bump(kind: 'types' | 'fields', file: string, n = 1): void {
    this.count[kind] += n;
    const max = kind === 'types' ? this.limits.maxTypes : this.limits.maxFields;
    if (this.count[kind] > max)
      throw specError(
        file,
        undefined,
        kind === 'types'
          ? `more than ${max} messages, enums and services`
          : `more than ${max} fields, enum values and methods`,
      );
  }

  private declare(f: Parsed, ns: Namespace): void {
    for (const o of ns.nestedArray) {
      const kind = isType(o) ? 'message' : isEnum(o) ? 'enum' : isService(o) ? 'service' : undefined;
      if (!kind) continue;
      this.bump('types', f.source.name);
      const name = fullName(o);
      const prev = this.symbols.get(name);
      if (prev)
        throw specError(
          f.source.name,
          lineOf(f.source.text, new RegExp(`\\b(message|enum|service)\\s+${escapeRe(o.name)}\\b`)),
          `${name} is already defined in ${prev.file}`,
        );
      this.symbols.set(name, { kind, file: f.source.name });
      if (isType(o)) this.declare(f, o);
    }
  }

  /** Resolves `ref` as protoc does from inside `scope` (a package or message full name). */
  private resolve(f: Parsed, ref: string, scope: string, what: string, kinds: Symbol['kind'][]): string {
    const candidates: string[] = [];
    if (ref.startsWith('.')) candidates.push(ref.slice(1));
    else {
      const parts = scope === '' ? [] : scope.split('.');
      for (let i = parts.length; i >= 0; i--) candidates.push([...parts.slice(0, i), ref].join('.'));
    }
    const line = (): number | undefined =>
      lineOf(f.source.text, new RegExp(`${escapeRe(ref)}\\s*>?\\s+${escapeRe(what)}\\b`)) ??
      lineOf(f.source.text, new RegExp(`\\b${escapeRe(what)}\\s*\\(`)) ??
      lineOf(f.source.text, new RegExp(`(^|[^\\w.])${escapeRe(ref)}\\b`, 'm'));
    for (const c of candidates) {
      const s = this.symbols.get(c);
      if (!s || !kinds.includes(s.kind)) continue;
      if (!this.visible.get(f.source.name)?.has(s.file))
        throw specError(
          f.source.name,
          line(),
          `${what}: ${c} is defined in "${s.file}", which is not imported`,
        );
      return '.' + c;
    }
    throw specError(f.source.name, line(), `${what}: type "${ref}" is not defined`);
  }

  private file(f: Parsed): FileDescriptorProto {
    const options: Record<string, unknown> = {};
    const own = f.ns.options ?? {};
    const camel = (k: string): string => k.replace(/_(.)/g, (_m, c: string) => c.toUpperCase());
    for (const k of FILE_OPTIONS) if (own[k] !== undefined) options[camel(k)] = own[k];
    const file = create(FileDescriptorProtoSchema, {
      name: f.source.name,
      package: f.pkg,
      dependency: [...f.imports, ...f.weak],
      weakDependency: f.weak.map((_w, i) => f.imports.length + i),
      syntax: f.syntax === 'proto3' ? 'proto3' : '',
      options: Object.keys(options).length > 0 ? options : undefined,
    });
    for (const o of f.ns.nestedArray) {
      if (isType(o)) file.messageType.push(this.message(f, o));
      else if (isEnum(o)) file.enumType.push(this.enum(f, o));
      else if (isService(o)) file.service.push(this.service(f, o));
      else if (isExtension(o)) file.extension.push(this.field(f, o, f.pkg, undefined));
    }
    return file;
  }

  private message(f: Parsed, t: Type): DescriptorProto {
    const scope = fullName(t);
    const real = t.oneofsArray.filter((o) => !o.fieldsArray.some((x) => x.options?.['proto3_optional']));
    const synthetic = t.oneofsArray.filter((o) => !real.includes(o));
    const oneofs = [...real, ...synthetic];
    const msg = create(DescriptorProtoSchema, {
      name: t.name,
      oneofDecl: oneofs.map((o) => ({ name: o.name })),
      options: t.options?.['deprecated'] === true ? { deprecated: true } : undefined,
    });
    for (const o of t.nestedArray) {
      if (isType(o)) msg.nestedType.push(this.message(f, o));
      else if (isEnum(o)) msg.enumType.push(this.enum(f, o));
      else if (isExtension(o)) msg.extension.push(this.field(f, o, scope, undefined));
    }
    for (const field of t.fieldsArray) {
      if (field.declaringField || field.name.startsWith('.')) continue;
      this.bump('fields', f.source.name);
      const oneof = field.partOf ? oneofs.indexOf(field.partOf) : -1;
      if (field instanceof protobuf.MapField) {
        const map = field as MapField;
        const entry = create(DescriptorProtoSchema, {
          name: mapEntryName(map.name),
          options: { mapEntry: true },
        });
        const key = SCALARS[map.keyType];
        if (key === undefined || key === FType.DOUBLE || key === FType.FLOAT || key === FType.BYTES)
          throw specError(
            f.source.name,
            lineOf(f.source.text, /map\s*</),
            `${map.name}: invalid map key type`,
          );
        entry.field.push(
          create(FieldDescriptorProtoSchema, {
            name: 'key',
            number: 1,
            label: Label.OPTIONAL,
            type: key,
            jsonName: 'key',
          }),
          this.typed(f, map.type, scope, map.name, {
            name: 'value',
            number: 2,
            label: Label.OPTIONAL,
            jsonName: 'value',
          }),
        );
        msg.nestedType.push(entry);
        msg.field.push(
          create(FieldDescriptorProtoSchema, {
            name: map.name,
            number: map.id,
            label: Label.REPEATED,
            type: FType.MESSAGE,
            typeName: `.${scope}.${entry.name}`,
            jsonName: this.jsonName(map),
          }),
        );
        continue;
      }
      msg.field.push(this.field(f, field, scope, oneof >= 0 ? oneof : undefined));
    }
    for (const [start, end] of ranges(t.extensions))
      msg.extensionRange.push(create(DescriptorProto_ExtensionRangeSchema, { start, end: end + 1 }));
    for (const r of t.reserved ?? []) {
      if (typeof r === 'string') msg.reservedName.push(r);
      else
        msg.reservedRange.push(
          create(DescriptorProto_ReservedRangeSchema, { start: r[0] ?? 0, end: (r[1] ?? 0) + 1 }),
        );
    }
    return msg;
  }

  private jsonName(field: { name: string; options?: Record<string, unknown> | undefined }): string {
    const given = field.options?.['json_name'];
    return typeof given === 'string' ? given : jsonNameOf(field.name);
  }

  private field(f: Parsed, field: Field, scope: string, oneof: number | undefined): FieldDescriptorProto {
    const opts = field.options ?? {};
    const out = this.typed(f, field.type, scope, field.name, {
      name: field.name,
      number: field.id,
      label:
        (field as Field & { rule?: string }).rule === 'repeated'
          ? Label.REPEATED
          : (field as Field & { rule?: string }).rule === 'required'
            ? Label.REQUIRED
            : Label.OPTIONAL,
      jsonName: this.jsonName(field),
      oneofIndex: oneof,
      proto3Optional: opts['proto3_optional'] === true ? true : undefined,
    });
    if (field.extend !== undefined)
      out.extendee = this.resolve(f, field.extend, scope, field.name, ['message']);
    const fieldOptions: { packed?: boolean; deprecated?: boolean } = {};
    if (typeof opts['packed'] === 'boolean') fieldOptions.packed = opts['packed'];
    if (opts['deprecated'] === true) fieldOptions.deprecated = true;
    if (Object.keys(fieldOptions).length > 0)
      out.options = create(FieldDescriptorProtoSchema, { options: fieldOptions }).options;
    const def = opts['default'] as unknown;
    if (def !== undefined) out.defaultValue = defaultText(def);
    return out;
  }

  private typed(
    f: Parsed,
    type: string,
    scope: string,
    what: string,
    init: Partial<Pick<FieldDescriptorProto, 'name' | 'number' | 'label' | 'jsonName' | 'proto3Optional'>> & {
      oneofIndex?: number | undefined;
    },
  ): FieldDescriptorProto {
    const scalar = SCALARS[type];
    const base = { ...init, oneofIndex: init.oneofIndex, proto3Optional: init.proto3Optional };
    if (scalar !== undefined) return create(FieldDescriptorProtoSchema, { ...base, type: scalar });
    const typeName = this.resolve(f, type, scope, what, ['message', 'enum']);
    const target = this.symbols.get(typeName.slice(1));
    const group = target?.kind === 'message' && this.isGroup(f, typeName.slice(1));
    const kind = target?.kind === 'enum' ? FType.ENUM : group ? FType.GROUP : FType.MESSAGE;
    return create(FieldDescriptorProtoSchema, { ...base, type: kind, typeName });
  }

  private isGroup(f: Parsed, name: string): boolean {
    const t = f.ns.root.lookup(name);
    return t instanceof protobuf.Type && (t as Type & { group?: boolean }).group === true;
  }

  private enum(f: Parsed, e: Enum): EnumDescriptorProto {
    const values = Object.entries(e.values);
    this.bump('fields', f.source.name, values.length);
    if (f.syntax === 'proto3' && values[0]?.[1] !== 0)
      throw specError(
        f.source.name,
        lineOf(f.source.text, new RegExp(`\\benum\\s+${escapeRe(e.name)}\\b`)),
        `${fullName(e)}: the first value of a proto3 enum must be zero`,
      );
    const out = create(EnumDescriptorProtoSchema, {
      name: e.name,
      value: values.map(([name, number]) => ({
        name,
        number,
        options: e.valuesOptions?.[name]?.['deprecated'] === true ? { deprecated: true } : undefined,
      })),
      options: e.options?.['allow_alias'] === true ? { allowAlias: true } : undefined,
    });
    for (const r of e.reserved ?? []) {
      if (typeof r === 'string') out.reservedName.push(r);
      else
        out.reservedRange.push(
          create(EnumDescriptorProto_EnumReservedRangeSchema, { start: r[0] ?? 0, end: r[1] ?? 0 }),
        );
    }
    return out;
  }

  private service(f: Parsed, s: Service): ServiceDescriptorProto {
    const scope = fullName(s);
    this.bump('fields', f.source.name, s.methodsArray.length);
    return create(ServiceDescriptorProtoSchema, {
      name: s.name,
      method: s.methodsArray.map((m: Method) => ({
        name: m.name,
        inputType: this.resolve(f, m.requestType, scope, m.name, ['message']),
        outputType: this.resolve(f, m.responseType, scope, m.name, ['message']),
        clientStreaming: m.requestStream === true ? true : undefined,
        serverStreaming: m.responseStream === true ? true : undefined,
        options: m.options?.['deprecated'] === true ? { deprecated: true } : undefined,
      })),
      options: s.options?.['deprecated'] === true ? { deprecated: true } : undefined,
    });
  }
}

function ranges(r: number[][] | undefined): [number, number][] {
  return (r ?? []).map((x) => [x[0] ?? 0, x[1] ?? 0]);
}

/** A proto2 `default` as descriptor text: `inf`, `-inf`, `nan` for floats, the raw text otherwise. */
function defaultText(v: unknown): string {
  if (typeof v === 'number')
    return Number.isNaN(v) ? 'nan' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : String(v);
  return String(v);
}

/**
 * FileDescriptorProtos for `.proto` sources that import each other (and the bundled
 * `google/protobuf/*` files), in the order given; the bundled files they use are not included.
 */
export function protoSourcesToFiles(sources: ProtoSource[], limits: SpecLimits): FileDescriptorProto[] {
  const parsed = sources.map((s) => parseOne(s, limits));
  return new Converter(parsed, limits).run();
}
