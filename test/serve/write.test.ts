/**
 * The endpoint plane's writer (src/serve/write.ts) puts on the wire what Fastify's send puts there for
 * the same answer (`sendAnswer`, the management plane's writer), except where docs/architecture.md
 * decides otherwise: a Content-Type is passed on as written (never lower-cased or replaced), and
 * only `application/json` and `+json` text bodies without a charset get `; charset=utf-8`. Each
 * answer is sent both ways by one server and the raw responses compared, Date aside.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { sendAnswer, type Answer } from '../../src/http/index.js';
import { writeWhole } from '../../src/serve/write.js';

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
  { status: 200, headers: { 'content-type': 'application/jsonl' }, body: '{}' },
  { status: 200, headers: { 'content-type': 'application/json; charset=iso-8859-1' }, body: '{"é":1}' },
];

/** The answers whose Content-Type the door decides otherwise than Fastify: the type it writes. */
const DECIDED: Record<number, string> = {
  4: 'Application/Vnd.API+JSON; charset=utf-8', // Fastify lower-cases it
  7: 'not a type', // Fastify replaces it with text/plain; charset=utf-8
  21: 'application/jsonl', // Fastify adds a charset to every type that contains "json"
};
/** Refused by Node: the writer throws, nothing written (the door answers 500: test/serve/door.test.ts). */
const REFUSED = 20;

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

async function server(): Promise<{ port: number; close: () => Promise<void> }> {
  const app = Fastify({
    serverFactory: (handler) =>
      createServer((req, res) => {
        const direct = /^\/direct\/(\d+)$/.exec(req.url ?? '');
        if (direct) writeWhole(res, req.method, ANSWERS[Number(direct[1])]!);
        else handler(req, res);
      }),
  });
  app.route({
    method: ['GET', 'HEAD'],
    url: '/fastify/:i',
    onRequest: async (request: FastifyRequest<{ Params: { i: string } }>, reply: FastifyReply) =>
      sendAnswer(reply, ANSWERS[Number(request.params.i)]!),
    handler: () => {
      throw new Error('answered in onRequest');
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  return { port, close: () => app.close() };
}

test('every answer reaches the wire byte for byte as Fastify sends it, for GET and HEAD', async () => {
  const s = await server();
  try {
    for (const method of ['GET', 'HEAD']) {
      for (let i = 0; i < ANSWERS.length; i++) {
        if (i === REFUSED) continue;
        const viaFastify = await raw(s.port, method, `/fastify/${i}`);
        const direct = await raw(s.port, method, `/direct/${i}`);
        const decided = DECIDED[i];
        const expected =
          decided === undefined
            ? viaFastify
            : viaFastify.replace(/^content-type: .*$/im, `content-type: ${decided}`);
        assert.equal(direct, expected, `${method} answer ${i}`);
        assert.match(direct, /^HTTP\/1\.1 \d{3} /);
      }
    }
  } finally {
    await s.close();
  }
});
