/**
 * bench:grpc's baseline, run as its own process: a minimal @grpc/grpc-js server of BENCH_PROTO on
 * loopback, port 0, answering each call with its request message, by hand. Prints the listening line
 * bench/servers.ts startServer waits for; SIGTERM stops it.
 */
import * as grpc from '@grpc/grpc-js';
import { benchService } from './grpc-proto.js';

const server = new grpc.Server();
server.addService(benchService().service, {
  Echo: (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) =>
    cb(null, call.request),
});
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  console.log(`listening on http://127.0.0.1:${port}`);
});
process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)));
