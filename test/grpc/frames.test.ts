/**
 * Length-prefixed framing, gzip in and out, the reader's bounds, and grpc-timeout parsing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import {
  FrameDecoder,
  decodeMessage,
  encodeFrame,
  encodeMessage,
  readMessages,
  FLAG_COMPRESSED,
  FLAG_TRAILERS,
} from '../../src/grpc/frames.js';
import { parseGrpcTimeout, armDeadline, MAX_TIMER_MS } from '../../src/grpc/timeout.js';
import { CallError, GrpcStatus } from '../../src/grpc/types.js';

const msg = (s: string) => Buffer.from(s);

function code(fn: () => unknown): number {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof CallError, String(err));
    return err.code;
  }
  assert.fail('did not throw');
}

async function asyncCode(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof CallError, String(err));
    return err.code;
  }
  assert.fail('did not throw');
}

test('a frame split across chunks, byte by byte, comes out whole', () => {
  const d = new FrameDecoder({ maxMessageBytes: 100 });
  const bytes = encodeFrame(msg('hello'));
  const out = [];
  for (const b of bytes) out.push(...d.push(Buffer.from([b])));
  assert.equal(out.length, 1);
  assert.equal(Buffer.from(out[0]!.data).toString(), 'hello');
  assert.equal(d.pendingBytes, 0);
  d.end();
});

test('several frames in one chunk, including an empty message', () => {
  const d = new FrameDecoder({ maxMessageBytes: 100 });
  const chunk = Buffer.concat([encodeFrame(msg('a')), encodeFrame(msg('')), encodeFrame(msg('ccc'))]);
  const frames = d.push(chunk);
  assert.deepEqual(
    frames.map((f) => f.data.toString()),
    ['a', '', 'ccc'],
  );
});

test('maxMessageBytes: limit-1 and limit pass, limit+1 is RESOURCE_EXHAUSTED from its header alone', () => {
  const limit = 10;
  for (const n of [limit - 1, limit]) {
    const d = new FrameDecoder({ maxMessageBytes: limit });
    assert.equal(d.push(encodeFrame(Buffer.alloc(n))).length, 1);
  }
  const d = new FrameDecoder({ maxMessageBytes: limit });
  const header = encodeFrame(Buffer.alloc(limit + 1)).subarray(0, 5);
  assert.equal(
    code(() => d.push(header)),
    GrpcStatus.RESOURCE_EXHAUSTED,
  );
});

test('a body that ends inside a frame is INTERNAL', () => {
  const d = new FrameDecoder({ maxMessageBytes: 100 });
  d.push(encodeFrame(msg('hello')).subarray(0, 7));
  assert.equal(
    code(() => d.end()),
    GrpcStatus.INTERNAL,
  );
});

test('unknown flags are INTERNAL; the trailer flag only when allowed', () => {
  assert.equal(
    code(() => new FrameDecoder({ maxMessageBytes: 9 }).push(encodeFrame(msg('x'), 0x02))),
    GrpcStatus.INTERNAL,
  );
  assert.equal(
    code(() => new FrameDecoder({ maxMessageBytes: 9 }).push(encodeFrame(msg('x'), FLAG_TRAILERS))),
    GrpcStatus.INTERNAL,
  );
  const frames = new FrameDecoder({ maxMessageBytes: 9, allowTrailers: true }).push(
    encodeFrame(msg('x'), 0x80),
  );
  assert.equal(frames[0]?.flags, FLAG_TRAILERS);
});

test('gzip out and in round-trips; identity leaves the frame uncompressed', async () => {
  const framed = await encodeMessage(msg('zipped!'), 'gzip');
  assert.equal(framed[0], FLAG_COMPRESSED);
  const [frame] = new FrameDecoder({ maxMessageBytes: 100 }).push(framed);
  assert.equal(Buffer.from(await decodeMessage(frame!, 'gzip', 100)).toString(), 'zipped!');
  const plain = await encodeMessage(msg('plain'));
  assert.equal(plain[0], 0);
});

test('bad compression: unknown encoding UNIMPLEMENTED, none INTERNAL, corrupt INTERNAL', async () => {
  const frame = { flags: FLAG_COMPRESSED, data: gzipSync(msg('x')) };
  assert.equal(await asyncCode(decodeMessage(frame, 'snappy', 100)), GrpcStatus.UNIMPLEMENTED);
  assert.equal(await asyncCode(decodeMessage(frame, undefined, 100)), GrpcStatus.INTERNAL);
  assert.equal(await asyncCode(decodeMessage(frame, 'identity', 100)), GrpcStatus.INTERNAL);
  const corrupt = { flags: FLAG_COMPRESSED, data: Buffer.from('not gzip at all') };
  assert.equal(await asyncCode(decodeMessage(corrupt, 'gzip', 100)), GrpcStatus.INTERNAL);
  const plain = { flags: 0, data: msg('x') };
  assert.equal(Buffer.from(await decodeMessage(plain, 'snappy', 100)).toString(), 'x');
});

test('the inflated size is bounded: limit inflates, limit+1 is RESOURCE_EXHAUSTED', async () => {
  const limit = 1000;
  const at = { flags: FLAG_COMPRESSED, data: gzipSync(Buffer.alloc(limit)) };
  assert.equal((await decodeMessage(at, 'gzip', limit)).length, limit);
  const over = { flags: FLAG_COMPRESSED, data: gzipSync(Buffer.alloc(limit + 1)) };
  assert.equal(await asyncCode(decodeMessage(over, 'gzip', limit)), GrpcStatus.RESOURCE_EXHAUSTED);
});

function reader(source: PassThrough, maxBufferedBytes = 1 << 20) {
  const errors: CallError[] = [];
  const it = readMessages(source, {
    maxMessageBytes: 100,
    maxBufferedBytes,
    encoding: 'gzip',
    onError: (e) => errors.push(e),
  });
  return { it, errors };
}

test('readMessages yields every message in order, gzip ones included, and ends with the body', async () => {
  const source = new PassThrough();
  const { it } = reader(source);
  source.write(encodeFrame(msg('one')));
  source.write(await encodeMessage(msg('two'), 'gzip'));
  source.end(encodeFrame(msg('three')));
  const got: string[] = [];
  for await (const m of it) got.push(Buffer.from(m).toString());
  assert.deepEqual(got, ['one', 'two', 'three']);
});

test('readMessages throws the CallError of a bad frame and reports it', async () => {
  const source = new PassThrough();
  const { it, errors } = reader(source);
  source.end(encodeFrame(Buffer.alloc(101)));
  await assert.rejects(
    (async () => {
      for await (const _ of it) void _;
    })(),
    (e: unknown) => e instanceof CallError && e.code === GrpcStatus.RESOURCE_EXHAUSTED,
  );
  assert.equal(errors.length, 1);
});

test('readMessages pauses its source at maxBufferedBytes and resumes as the handler reads', async () => {
  const source = new PassThrough();
  const { it } = reader(source, 20);
  for (let i = 0; i < 5; i++) source.write(encodeFrame(Buffer.alloc(10)));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(source.isPaused(), true);
  source.end();
  let n = 0;
  for await (const _ of it) n++;
  assert.equal(n, 5);
});

test('readMessages: a source closed before its end is CANCELLED', async () => {
  const source = new PassThrough();
  const { it } = reader(source);
  source.write(encodeFrame(msg('a')));
  source.destroy();
  const got: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const m of it) got.push(Buffer.from(m).toString());
    })(),
    (e: unknown) => e instanceof CallError && e.code === GrpcStatus.CANCELLED,
  );
});

test('grpc-timeout: every unit, and 8 digits at most', () => {
  assert.equal(parseGrpcTimeout('1H'), 3_600_000);
  assert.equal(parseGrpcTimeout('2M'), 120_000);
  assert.equal(parseGrpcTimeout('3S'), 3000);
  assert.equal(parseGrpcTimeout('4m'), 4);
  assert.equal(parseGrpcTimeout('5000u'), 5);
  assert.equal(parseGrpcTimeout('6000000n'), 6);
  assert.equal(parseGrpcTimeout(undefined), undefined);
  assert.equal(parseGrpcTimeout('9999999S'), 9_999_999_000);
  assert.equal(parseGrpcTimeout('99999999S'), 99_999_999_000);
  for (const bad of ['999999999S', '', 'S', '10', '1s', '-1S', '1.5S', ' 1S', '1 S', '1SS']) {
    assert.equal(
      code(() => parseGrpcTimeout(bad)),
      GrpcStatus.INTERNAL,
      bad,
    );
  }
});

test('armDeadline fires once; beyond MAX_TIMER_MS it arms nothing', async () => {
  let fired = 0;
  const { deadline } = armDeadline(5, () => fired++);
  assert.ok(deadline >= Date.now() - 1);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(fired, 1);
  const never = armDeadline(MAX_TIMER_MS + 1, () => fired++);
  never.disarm();
  const disarmed = armDeadline(5, () => fired++);
  disarmed.disarm();
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(fired, 1);
});
