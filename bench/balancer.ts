/**
 * The round-robin TCP balancer of bench:cluster: each new connection goes to the next instance, and
 * bytes are piped both ways untouched (no HTTP parsing, no retry: what the client sends reaches one
 * instance once). A client that goes away ends its upstream connection gracefully, so that a request
 * already forwarded is still answered (and recorded) by the instance.
 *
 *   node --import tsx bench/balancer.ts PORT_A PORT_B …    prints "listening on http://127.0.0.1:PORT"
 */
import { createConnection, createServer, type Socket } from 'node:net';

const ports = process.argv.slice(2).map(Number);
if (ports.length === 0 || ports.some((p) => !Number.isInteger(p) || p <= 0)) {
  console.error('usage: balancer.ts PORT_A PORT_B …');
  process.exit(2);
}

let next = 0;
const open = new Set<Socket>();

const server = createServer({ noDelay: true }, (client) => {
  const port = ports[next++ % ports.length]!;
  const upstream = createConnection({ host: '127.0.0.1', port, noDelay: true });
  open.add(client);
  open.add(upstream);
  client.pipe(upstream);
  upstream.pipe(client);
  // The client gone (closed or reset): the instance still gets what was sent, then the end of it.
  client.on('error', () => upstream.end());
  client.on('close', () => {
    open.delete(client);
    upstream.end();
  });
  upstream.on('error', () => client.destroy());
  upstream.on('close', () => {
    open.delete(upstream);
    client.destroy();
  });
});

process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  for (const s of open) s.destroy();
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  console.log(`listening on http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`);
});
