/**
 * The endpoint lifecycle's direct reply (src/http/answer.ts `replyDirect`) puts on the wire exactly what
 * Fastify's send puts there for the same answer (`sendAnswer`), and Fastify's onResponse hooks still
 * run for it. Each answer is sent both ways by one server and the raw responses compared, Date aside.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { replyDirect, sendAnswer, type Answer } from '../../src/http/index.js';

const JSON_TYPE = 'application/json; charset=utf-8';

const ANSWERS: Answer[] = [
  { status: 200, headers: { 'content-type': JSON_TYPE, 'x-a': '1' }, body: '{"ok":true,"é":"€"}' },
  { status: 201, headers: { 'content-type': 'text/html' }, body: '<p>hi</p>' },
  { status: 418, headers: { 'content-type': 'application/json' }, body: '{"no charset":1}' },
  { status: 200, headers: { 'content-type': 'application/problem+json' }, body: '{}' },
  { status: 200, headers: { 'x-first': '1', 'content-type': 'Application/Vnd.API+JSON' }, body: '{}' },
  { status: 200, headers: { 'content-type': 'Application/JSON;charset=UTF-8' }, body: '[]' },
  { status: 200, headers: { 'content-type': 'text/plain; charset="utf-8"' }, body: 'quoted charset' },
  { status: 200, headers: { 'content-type': 'not a type' }, body: 'odd type' },
  { status: 200, headers: {}, body: 'no type' },
  { status: 200, headers: {}, body: Buffer.from([0, 1, 2]) },
  { status: 200, headers: { 'content-type': 'image/png' }, body: Buffer.from([137, 80, 78, 71]) },
  { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"buffer":1}') },
  { status: 500, headers: { 'content-type': 'text/plain', 'set-cookie': ['a=1', 'b=2'] }, body: 'cookies' },
  { status: 200, headers: { 'content-type': 'text/plain', 'x-two': ['1', '2'] }, body: 'repeated' },
  { status: 200, headers: { 'content-type': 'text/plain', 'content-length': '3' }, body: 'abc' },
  { status: 200, headers: { 'content-type': 'text/plain' }, body: '' },
  { status: 204, headers: { 'content-type': 'text/plain' }, body: '' },
  { status: 304, headers: { 'content-type': 'text/plain' }, body: '' },
  { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'gone\n' },
  { status: 599, headers: { 'content-type': 'text/plain' }, body: 'odd status' },
  // A value Node refuses to write (a character past U+00FF): the error answer Fastify then gives.
  { status: 200, headers: { 'content-type': 'text/plain', 'x-bad': 'caf€' }, body: 'refused' },
];

/** The raw response to one request on its own connection, Date header left out. */
function raw(port: number, method: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () =>
      resolve(
        Buffer.concat(chunks)
          .toString('latin1')
          .replace(/^Date: .*\r\n/im, ''),
      ),
    );
  });
}

async function server(): Promise<{ port: number; finished: string[]; close: () => Promise<void> }> {
  const app = Fastify();
  const finished: string[] = [];
  app.addHook('onResponse', (request, reply, done) => {
    finished.push(`${request.url} ${reply.statusCode}`);
    done();
  });
  const route = (send: (reply: FastifyReply, a: Answer) => FastifyReply) => ({
    onRequest: async (request: FastifyRequest<{ Params: { i: string } }>, reply: FastifyReply) =>
      send(reply, ANSWERS[Number(request.params.i)]!),
    handler: () => {
      throw new Error('answered in onRequest');
    },
  });
  app.route({ method: ['GET', 'HEAD'], url: '/fastify/:i', ...route(sendAnswer) });
  app.route({ method: ['GET', 'HEAD'], url: '/direct/:i', ...route(replyDirect) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  return { port, finished, close: () => app.close() };
}

test('every answer reaches the wire byte for byte as Fastify sends it, for GET and HEAD', async () => {
  const s = await server();
  try {
    for (const method of ['GET', 'HEAD']) {
      for (let i = 0; i < ANSWERS.length; i++) {
        const viaFastify = await raw(s.port, method, `/fastify/${i}`);
        const direct = await raw(s.port, method, `/direct/${i}`);
        assert.equal(direct, viaFastify, `${method} answer ${i}`);
        assert.match(direct, /^HTTP\/1\.1 \d{3} /);
      }
    }
  } finally {
    await s.close();
  }
});

test("Fastify's onResponse hooks run for a direct reply, with its status", async () => {
  const s = await server();
  try {
    await raw(s.port, 'GET', '/direct/2');
    await raw(s.port, 'GET', '/direct/0');
    await raw(s.port, 'GET', '/direct/18');
    assert.deepEqual(s.finished, ['/direct/2 418', '/direct/0 200', '/direct/18 404']);
  } finally {
    await s.close();
  }
});
