/**
 * The service bench:grpc calls, shared by its server and load processes: one unary method that answers
 * its request message, and a grpc-js loader of it from the proto text (written to a temp file, removed).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as loader from '@grpc/proto-loader';

/** The proto uploaded to Mockingbird and served by the bare server: `bench.Echo/Echo`. */
export const BENCH_PROTO = `syntax = "proto3";
package bench;
message Msg {
  string text = 1;
  int32 n = 2;
}
service Echo {
  rpc Echo(Msg) returns (Msg);
}
`;

/** The method's full name, as a `grpc_method` condition writes it. */
export const BENCH_METHOD = 'bench.Echo/Echo';

/** The request every call sends; both servers answer it back. */
export const BENCH_MESSAGE = { text: 'hello, bench', n: 42 };

/** The service definition and client constructor of BENCH_PROTO, for grpc-js. */
export function benchService(): { service: grpc.ServiceDefinition; Client: typeof grpc.Client } {
  const dir = mkdtempSync(join(tmpdir(), 'mb-bench-grpc-'));
  try {
    const file = join(dir, 'bench.proto');
    writeFileSync(file, BENCH_PROTO);
    const def = loader.loadSync(file, { keepCase: true, defaults: false, longs: String });
    const pkg = grpc.loadPackageDefinition(def) as unknown as {
      bench: { Echo: typeof grpc.Client & { service: grpc.ServiceDefinition } };
    };
    return { service: pkg.bench.Echo.service, Client: pkg.bench.Echo };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
