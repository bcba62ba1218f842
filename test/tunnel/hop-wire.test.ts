/**
 * The pieces of a hop between instances that need no second instance: INSTANCE_URL and its default,
 * the hop key's check, lease signatures (an address is used only from a lease an instance signed), and
 * the length-prefixed head a hop's body and answer start with.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { PassThrough, Readable } from 'node:stream';
import { ConfigError, loadConfig } from '../../src/config.js';
import { defaultInstanceUrl, headFrame, hopKeys, leaseOwner, readHead } from '../../src/tunnel/index.js';
import { isHopKey, leaseValue } from '../../src/tunnel/hop-wire.js';

describe('INSTANCE_URL', () => {
  it('is unset by default and kept without a trailing slash', () => {
    assert.equal(loadConfig({}, {}).instanceUrl, undefined);
    assert.equal(
      loadConfig({}, { INSTANCE_URL: 'http://10.0.0.5:8080/' }).instanceUrl,
      'http://10.0.0.5:8080',
    );
    assert.equal(loadConfig({ 'instance-url': 'https://a.internal' }, {}).instanceUrl, 'https://a.internal');
  });

  it('refuses what is no plain http(s) URL, naming the setting', () => {
    for (const bad of [
      'ftp://a:21',
      'a.internal:8080',
      'http://u:p@a:8080',
      'http://a:8080/?x=1',
      'http://a/#f',
    ])
      assert.throws(
        () => loadConfig({}, { INSTANCE_URL: bad }),
        (err: Error) => err instanceof ConfigError && /INSTANCE_URL/.test(err.message),
        bad,
      );
  });

  it('defaults to HOST, or the host name when HOST binds every address, and the port', () => {
    assert.equal(defaultInstanceUrl('127.0.0.1', 8080, false), 'http://127.0.0.1:8080');
    assert.equal(defaultInstanceUrl('::1', 9000, true), 'https://[::1]:9000');
    assert.equal(defaultInstanceUrl('0.0.0.0', 80, false), `http://${hostname()}:80`);
    assert.equal(defaultInstanceUrl('::', 80, false), `http://${hostname()}:80`);
  });
});

describe('the hop key and lease signatures', () => {
  const keys = hopKeys('the shared secret');
  const owner = { instance: 'a1b2', url: 'http://10.0.0.5:8080' };

  it('takes only the exact hop key', () => {
    assert.equal(isHopKey(keys, keys.hop), true);
    assert.equal(isHopKey(keys, keys.hop.slice(1)), false);
    assert.equal(isHopKey(keys, keys.hop + 'x'), false);
    assert.equal(isHopKey(keys, hopKeys('another secret').hop), false);
    assert.equal(isHopKey(keys, undefined), false);
    assert.equal(isHopKey(keys, [keys.hop]), false);
  });

  it('reads the owner of a lease an instance signed, and nothing of any other', () => {
    const value = leaseValue(keys, 'shop', owner);
    assert.deepEqual(leaseOwner(keys, 'shop', value), owner);
    assert.equal(leaseOwner(keys, 'other', value), undefined, 'moved to another endpoint');
    assert.equal(leaseOwner(hopKeys('another secret'), 'shop', value), undefined, 'another secret');
    const redirected = value.replace('http://10.0.0.5:8080', 'http://169.254.169.254');
    assert.equal(leaseOwner(keys, 'shop', redirected), undefined, 'address changed');
    for (const junk of ['', 'v1', 'v2 a1b2 http://x sig', 'v1 a1b2 http://x', `${value} extra`])
      assert.equal(leaseOwner(keys, 'shop', junk), undefined, junk);
  });
});

describe("a hop's head", () => {
  it('is read across chunks, leaving the bytes after it in the stream', async () => {
    const frame = Buffer.concat([headFrame({ status: 200, headers: [['a', 'b']] }), Buffer.from('the body')]);
    const stream = new PassThrough();
    const head = readHead(stream);
    for (let i = 0; i < frame.length; i += 3) stream.write(frame.subarray(i, i + 3));
    stream.end();
    assert.deepEqual(await head, { status: 200, headers: [['a', 'b']] });
    const rest: Buffer[] = [];
    for await (const c of stream) rest.push(c as Buffer);
    assert.equal(Buffer.concat(rest).toString(), 'the body');
  });

  it('is refused when longer than the limit, cut short, or not a JSON object', async () => {
    await assert.rejects(
      readHead(Readable.from([headFrame({ long: 'x'.repeat(100) })]), 50),
      /longer than 50/,
    );
    await assert.rejects(readHead(Readable.from([headFrame({ a: 1 }).subarray(0, 6)])), /ended before/);
    await assert.rejects(readHead(Readable.from([Buffer.alloc(0)])), /ended before/);
    await assert.rejects(readHead(Readable.from([headFrame([1, 2])])), /not a JSON object/);
    const notJson = Buffer.concat([Buffer.from([0, 0, 0, 3]), Buffer.from('{x}')]);
    await assert.rejects(readHead(Readable.from([notJson])), /not JSON/);
  });
});
