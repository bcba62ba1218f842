/** Answers as the request path builds them (src/http/answer.ts). */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { withHeaders, type Answer } from '../../src/http/index.js';

void describe('withHeaders', () => {
  void it('adds the extra headers over those of the same name, in a fresh object', () => {
    const shared = { 'content-type': 'text/plain', 'x-a': '1' };
    const a: Answer = { status: 201, headers: shared, body: 'hi' };
    const out = withHeaders(a, { 'x-a': '2', 'set-cookie': ['a=1', 'b=2'] });
    assert.deepEqual(out.headers, { 'content-type': 'text/plain', 'x-a': '2', 'set-cookie': ['a=1', 'b=2'] });
    assert.equal(out.status, 201);
    assert.equal(out.body, 'hi');
    assert.notEqual(out.headers, shared);
    assert.deepEqual(
      shared,
      { 'content-type': 'text/plain', 'x-a': '1' },
      'the shared headers were written to',
    );
    assert.deepEqual(a.headers, shared);
  });

  void it('keeps a streamed answer its stream', () => {
    const stream = new PassThrough();
    const out = withHeaders({ status: 200, headers: {}, body: '', stream }, { 'x-b': '1' });
    assert.equal(out.stream, stream);
    assert.deepEqual(out.headers, { 'x-b': '1' });
  });
});
