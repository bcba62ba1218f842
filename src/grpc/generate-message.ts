/**
 * A generated answer for a message type, as proto3 JSON (SPEC §13: a method without a matching rule
 * answers data generated from its output type). Every field is filled by its type, strings by their
 * field name where the name says what they hold (`email`, `city`, `uuid` …); repeated fields get 1–3
 * items, maps 1–2 entries, a oneof one of its members; well-known types get their JSON forms
 * (Timestamp as RFC 3339, Duration as `"12s"`, Struct as an object …).
 *
 * Invariants: the result always encodes with fromJson for the same type; recursion stops at
 * GRPC_GENERATE_DEPTH (a message past it is left out, a list or map left empty) and the whole answer
 * at GRPC_GENERATE_NODES values, and a message type already being built (a recursive type) is left
 * out where it recurs, so recursive and very wide types terminate quickly.
 */
import { Faker, en } from '@faker-js/faker';
import {
  ScalarType,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
} from '@bufbuild/protobuf';

/** Nesting of messages past which message fields are left out (lists and maps empty). */
export const GRPC_GENERATE_DEPTH = 5;
/** Most values in one generated answer; past it, the remaining fields are left out. */
export const GRPC_GENERATE_NODES = 2000;

const faker = new Faker({ locale: [en] });

interface State {
  nodes: number;
  /** The message types being built, outermost first: a type met again is a recursion, left out. */
  path: string[];
}

/** A field name reduced for matching: `created_at` and `createdAt` are both `createdat`. */
const key = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

function stringByName(name: string): string {
  const n = key(name);
  if (n.includes('email')) return faker.internet.email();
  if (/^(firstname|givenname)$/.test(n)) return faker.person.firstName();
  if (/^(lastname|surname|familyname)$/.test(n)) return faker.person.lastName();
  if (/^(name|fullname|displayname|author|owner)$/.test(n)) return faker.person.fullName();
  if (/^(username|login|nickname)$/.test(n)) return faker.internet.username();
  if (/(phone|mobile|tel)/.test(n)) return faker.phone.number();
  if (/(street|address)/.test(n)) return faker.location.streetAddress();
  if (n === 'city') return faker.location.city();
  if (/^(zip|zipcode|postcode|postalcode)$/.test(n)) return faker.location.zipCode();
  if (n === 'countrycode') return faker.location.countryCode();
  if (n === 'country') return faker.location.country();
  if (/(company|organization|organisation)/.test(n)) return faker.company.name();
  if (/(url|uri|website|link|href)$/.test(n)) return faker.internet.url();
  if (/^(uuid|guid|id)$/.test(n) || /id$/.test(n)) return faker.string.uuid();
  if (/(date|time|timestamp|at)$/.test(n)) return faker.date.recent({ days: 30 }).toISOString();
  if (/(description|summary|comment|message|text|content|body|note)s?$/.test(n))
    return faker.lorem.sentence();
  if (/^(title|subject)$/.test(n)) return faker.lorem.words(3);
  if (/^(language|lang|locale)$/.test(n)) return faker.helpers.arrayElement(['en', 'de', 'fr', 'es']);
  return faker.lorem.word();
}

function scalar(type: ScalarType, name: string): JsonValue {
  switch (type) {
    case ScalarType.STRING:
      return stringByName(name);
    case ScalarType.BOOL:
      return faker.datatype.boolean();
    case ScalarType.BYTES:
      return Buffer.from(faker.string.alphanumeric(8)).toString('base64');
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return faker.number.float({ min: 0, max: 1000, fractionDigits: 2 });
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      // int64 is a string in proto3 JSON.
      return String(faker.number.int({ min: 1, max: 100_000 }));
    default:
      return faker.number.int({ min: 1, max: 1000 });
  }
}

/** The JSON form of a well-known type, or undefined for any other message. */
function wellKnown(desc: DescMessage, name: string): JsonValue | undefined {
  switch (desc.typeName) {
    case 'google.protobuf.Timestamp':
      return faker.date.recent({ days: 30 }).toISOString();
    case 'google.protobuf.Duration':
      return `${faker.number.int({ min: 1, max: 3600 })}s`;
    case 'google.protobuf.Struct':
      return { [faker.lorem.word()]: faker.lorem.word() };
    case 'google.protobuf.Value':
      return faker.lorem.word();
    case 'google.protobuf.ListValue':
      return [faker.lorem.word()];
    case 'google.protobuf.FieldMask':
      return 'name';
    case 'google.protobuf.Empty':
      return {};
    case 'google.protobuf.Any':
      return { '@type': 'type.googleapis.com/google.protobuf.Empty' };
    default:
      if (desc.typeName.startsWith('google.protobuf.') && desc.typeName.endsWith('Value')) {
        const value = desc.fields[0];
        if (value?.fieldKind === 'scalar') return scalar(value.scalar, name);
      }
      return undefined;
  }
}

function message(st: State, desc: DescMessage, depth: number, name: string): JsonValue | undefined {
  const wkt = wellKnown(desc, name);
  if (wkt !== undefined) return wkt;
  if (depth > GRPC_GENERATE_DEPTH || st.path.includes(desc.typeName)) return undefined;
  st.path.push(desc.typeName);
  const out: JsonObject = {};
  const oneofsDone = new Set<string>();
  for (const field of desc.fields) {
    if (st.nodes >= GRPC_GENERATE_NODES) break;
    if (field.oneof) {
      if (oneofsDone.has(field.oneof.name)) continue;
      oneofsDone.add(field.oneof.name);
    }
    const v = value(st, field, depth);
    if (v !== undefined) out[field.jsonName] = v;
  }
  st.path.pop();
  return out;
}

function single(st: State, field: DescField, depth: number): JsonValue | undefined {
  st.nodes++;
  switch (field.fieldKind) {
    case 'scalar':
      return scalar(field.scalar, field.name);
    case 'enum': {
      if (field.enum.typeName === 'google.protobuf.NullValue') return null;
      const v = field.enum.values.find((x) => x.number !== 0) ?? field.enum.values[0];
      return v?.name ?? 0;
    }
    case 'message':
      return message(st, field.message, depth + 1, field.name);
    default:
      return undefined;
  }
}

function item(
  st: State,
  field: DescField,
  depth: number,
  kind: 'scalar' | 'enum' | 'message',
): JsonValue | undefined {
  st.nodes++;
  if (kind === 'scalar' && 'scalar' in field && field.scalar !== undefined)
    return scalar(field.scalar, field.name.replace(/s$/, ''));
  if (kind === 'enum' && 'enum' in field && field.enum) {
    const v = field.enum.values.find((x) => x.number !== 0) ?? field.enum.values[0];
    return v?.name ?? 0;
  }
  if (kind === 'message' && 'message' in field && field.message)
    return message(st, field.message, depth + 1, field.name.replace(/s$/, ''));
  return undefined;
}

function value(st: State, field: DescField, depth: number): JsonValue | undefined {
  if (field.fieldKind === 'list') {
    if (
      field.listKind === 'message' &&
      (depth >= GRPC_GENERATE_DEPTH || st.path.includes(field.message.typeName))
    )
      return [];
    const n = faker.number.int({ min: 1, max: 3 });
    const out: JsonValue[] = [];
    for (let i = 0; i < n && st.nodes < GRPC_GENERATE_NODES; i++) {
      const v = item(st, field, depth, field.listKind);
      if (v === undefined || v === null) break;
      out.push(v);
    }
    return out;
  }
  if (field.fieldKind === 'map') {
    const out: JsonObject = {};
    if (
      field.mapKind === 'message' &&
      (depth >= GRPC_GENERATE_DEPTH || st.path.includes(field.message.typeName))
    )
      return out;
    const n = faker.number.int({ min: 1, max: 2 });
    for (let i = 0; i < n && st.nodes < GRPC_GENERATE_NODES; i++) {
      const k = mapKey(field.mapKey, i);
      const v = item(st, field, depth, field.mapKind);
      if (v === undefined || v === null) break;
      out[k] = v;
    }
    return out;
  }
  return single(st, field, depth);
}

/** The i-th key of a generated map: distinct by construction. */
function mapKey(type: ScalarType, i: number): string {
  if (type === ScalarType.BOOL) return i === 0 ? 'true' : 'false';
  if (type === ScalarType.STRING) return `${faker.lorem.word()}${i === 0 ? '' : i + 1}`;
  return String(i + 1);
}

const DAY_MS = 86_400_000;

/**
 * A generated proto3 JSON value for `desc`; the same `seed` gives the same value (the same day: dates
 * are recent ones, counted back from the start of the current UTC day when seeded, from now when not).
 */
export function generateMessage(desc: DescMessage, seed?: number): JsonValue {
  faker.seed(seed ?? Math.floor(Math.random() * 2 ** 31));
  faker.setDefaultRefDate(seed === undefined ? undefined : Math.floor(Date.now() / DAY_MS) * DAY_MS);
  return message({ nodes: 0, path: [] }, desc, 0, '') ?? {};
}
