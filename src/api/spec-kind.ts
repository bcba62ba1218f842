/**
 * Which kind of document a `POST …/specs` carries (SPEC §7, §13): an OpenAPI document or gRPC
 * descriptors (a .proto, or a compiled descriptor set). The rule, first match wins:
 *   1. `?type=grpc|openapi`, or the multipart field `type`, says so;
 *   2. a multipart file named `*.proto`, `*.pb`, `*.binpb`, `*.desc` or `*.protoset` is gRPC;
 *   3. a body whose Content-Type is one of GRPC_CONTENT_TYPES is gRPC;
 *   4. text that starts, after whitespace and `//` or `/* *\/` comments, with a .proto statement
 *      (`syntax =`, `edition =`, `package `, `import `, `option `, `service `, `message `, `enum `)
 *      is gRPC;
 *   5. anything else is OpenAPI (JSON or YAML).
 * Pure functions; the text scan looks at most at SNIFF_BYTES bytes.
 */

export type SpecKind = 'openapi' | 'grpc';

/** File name endings of gRPC uploads sent as multipart. */
export const GRPC_FILE_EXTENSIONS = ['.proto', '.pb', '.binpb', '.desc', '.protoset'] as const;

/** Content types of a gRPC upload sent as the body (a .proto's text, or a descriptor set's bytes). */
export const GRPC_CONTENT_TYPES = [
  'application/x-protobuf',
  'application/protobuf',
  'application/octet-stream',
  'text/x-protobuf',
  'application/x-protobuf-descriptor',
] as const;

/** Bytes of the start of a text body read to recognise a .proto (comments before it included). */
export const SNIFF_BYTES = 64 * 1024;

const PROTO_START = /^(?:(?:syntax|edition)\s*=|(?:package|import|option|service|message|enum)\s)/;

/** True when `text` starts, after whitespace and comments, with a statement of a .proto file. */
export function looksLikeProto(text: string): boolean {
  let s = text.slice(0, SNIFF_BYTES).replace(/^\uFEFF/, '');
  for (;;) {
    s = s.trimStart();
    if (s.startsWith('//')) {
      const end = s.indexOf('\n');
      if (end < 0) return false;
      s = s.slice(end + 1);
    } else if (s.startsWith('/*')) {
      const end = s.indexOf('*/', 2);
      if (end < 0) return false;
      s = s.slice(end + 2);
    } else return PROTO_START.test(s);
  }
}

/** The media type of a Content-Type header, lower-case, without parameters. */
function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Whether a body sent with this Content-Type is a gRPC upload by rule 3. */
export function isGrpcContentType(contentType: string | undefined): boolean {
  return (GRPC_CONTENT_TYPES as readonly string[]).includes(mediaType(contentType));
}

/**
 * The kind of an upload by the rule above: `forced` is the `type` asked for, `fileName` the multipart
 * file's name, `contentType` the body's (not a multipart part's: clients label any file
 * application/octet-stream), `data` the upload.
 */
export function specKindOf(u: {
  forced?: SpecKind | undefined;
  fileName?: string | undefined;
  contentType?: string | undefined;
  data: Buffer;
}): SpecKind {
  if (u.forced) return u.forced;
  const name = (u.fileName ?? '').toLowerCase();
  if (GRPC_FILE_EXTENSIONS.some((ext) => name.endsWith(ext))) return 'grpc';
  if (u.fileName === undefined && isGrpcContentType(u.contentType)) return 'grpc';
  return looksLikeProto(u.data.subarray(0, SNIFF_BYTES).toString('utf8')) ? 'grpc' : 'openapi';
}
