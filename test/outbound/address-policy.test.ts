/**
 * The one SSRF guard (src/outbound): every form of a denied address is refused, whatever notation
 * names it; loopback and private ranges are denied by default (issue 30), public addresses pass;
 * PROXY_ALLOW and PROXY_DENY move the line
 * either way, the most specific range deciding; URL forms that disguise a target are refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AddressPolicy,
  OutboundClient,
  parseCidr,
  parseTarget,
  targetProblem,
  TargetRefused,
} from '../../src/outbound/index.js';

const byDefault = new AddressPolicy();

test('metadata and link-local addresses are refused in every notation', () => {
  for (const ip of [
    '169.254.169.254',
    '169.254.170.2',
    '::ffff:169.254.169.254',
    '[::ffff:169.254.169.254]',
    '::ffff:a9fe:a9fe',
    '0:0:0:0:0:ffff:a9fe:a9fe',
    '::169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    'fe80::1',
    'fe80::1%eth0',
    'fd00:ec2::254',
    '100.100.100.200',
    '168.63.129.16',
    '0.0.0.0',
    '::',
    '224.0.0.1',
    '255.255.255.255',
  ]) {
    const r = byDefault.check(ip);
    assert.ok(r, `${ip} should be refused`);
  }
  assert.equal(byDefault.check('[::ffff:169.254.169.254]')?.address, '169.254.169.254');
  assert.equal(byDefault.check('169.254.169.254')?.range, '169.254.0.0/16');
});

test('public addresses pass by default; loopback, private and CGNAT ones are denied (issue 30)', () => {
  for (const ip of ['93.184.216.34', '2606:4700::1111', '8.8.8.8'])
    assert.equal(byDefault.check(ip), undefined, ip);
  for (const ip of ['127.0.0.1', '::1', '10.1.2.3', '192.168.0.10', '172.16.5.5', 'fd12::1', '100.64.0.1'])
    assert.ok(byDefault.check(ip), ip);
  // Opened by the operator's allow-list, each of them passes as it did before.
  const team = new AddressPolicy({
    allow: [
      '127.0.0.0/8',
      '::1/128',
      '10.0.0.0/8',
      '192.168.0.0/16',
      '172.16.0.0/12',
      'fc00::/7',
      '100.64.0.0/10',
    ],
  });
  for (const ip of ['127.0.0.1', '::1', '10.1.2.3', '192.168.0.10', '172.16.5.5', 'fd12::1', '100.64.0.1'])
    assert.equal(team.check(ip), undefined, ip);
});

test('PROXY_DENY denies loopback in every notation; the URL parser normalises 0x7f.1', () => {
  // Loopback allowed by the operator first, so that the deny is what refuses it.
  const p = new AddressPolicy({
    allow: ['127.0.0.0/8', '::1/128', '10.0.0.0/8'],
    deny: ['127.0.0.0/8', '::1/128'],
  });
  assert.equal(new URL('http://0x7f.1/').hostname, '127.0.0.1');
  assert.equal(new URL('http://2130706433/').hostname, '127.0.0.1');
  for (const ip of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1', new URL('http://0x7f.1/').hostname])
    assert.equal(p.check(ip)?.reason, 'denied by PROXY_DENY', ip);
  assert.equal(p.check('10.0.0.1'), undefined);
});

test('PROXY_ALLOW opens a denied range; the most specific range decides; deny wins a tie', () => {
  const allowHost = new AddressPolicy({ allow: ['169.254.169.254'] });
  assert.equal(allowHost.check('169.254.169.254'), undefined);
  assert.ok(allowHost.check('169.254.169.253'), 'the rest of link-local stays denied');
  // A broad allow does not open a narrower built-in denial.
  assert.ok(new AddressPolicy({ allow: ['0.0.0.0/0'] }).check('169.254.169.254'));
  assert.equal(new AddressPolicy({ allow: ['169.254.0.0/16'] }).check('169.254.169.254'), undefined);
  // An allow-list: everything denied but one range.
  const only = new AddressPolicy({ deny: ['0.0.0.0/0', '::/0'], allow: ['10.0.0.0/8'] });
  assert.equal(only.check('10.9.9.9'), undefined);
  assert.ok(only.check('127.0.0.1'));
  assert.ok(only.check('::1'));
  assert.ok(new AddressPolicy({ deny: ['10.0.0.0/8'], allow: ['10.0.0.0/8'] }).check('10.0.0.1'));
  assert.ok(byDefault.check('not-an-ip'));
});

test('CIDR lists are parsed strictly', () => {
  assert.equal(parseCidr('10.0.0.0/8').bits, 104);
  assert.equal(parseCidr('::1').bits, 128);
  for (const bad of ['10.0.0.0/33', 'example.com', '10.0.0/8', '::/129', '1.2.3.4/x'])
    assert.throws(() => parseCidr(bad), bad);
});

test('URL forms that disguise a target are refused before any address is looked at', () => {
  assert.match(targetProblem('http://x@127.0.0.1/') ?? '', /credentials/);
  assert.match(targetProblem('http://user:pw@example.com/') ?? '', /credentials/);
  assert.match(targetProblem('file:///etc/passwd') ?? '', /scheme file:/);
  assert.match(targetProblem('gopher://127.0.0.1:6379/_') ?? '', /scheme/);
  assert.match(targetProblem('not a url') ?? '', /not a valid URL/);
  assert.equal(targetProblem('https://api.example.com/v1'), undefined);
  assert.throws(() => parseTarget('ftp://example.com/'), TargetRefused);
});

test('a name is checked after it is resolved: localhost under a loopback denial is refused', async () => {
  const client = new OutboundClient({ deny: ['127.0.0.0/8', '::1/128'], timeout: 1000 });
  try {
    await assert.rejects(client.resolve('localhost'), TargetRefused);
    await assert.rejects(
      client.request({ url: 'http://localhost:9/', method: 'GET', headers: {} }),
      (err: Error & { kind?: string }) => err.kind === 'refused',
    );
    await assert.rejects(
      client.request({ url: 'http://[::ffff:169.254.169.254]/', method: 'GET', headers: {} }),
      (err: Error & { kind?: string }) => err.kind === 'refused' && /169\.254\.169\.254/.test(err.message),
    );
  } finally {
    await client.close();
  }
});

test('no DNS rebinding: the connection goes to the address the guard checked, with no second lookup', async () => {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => res.end(`host=${req.headers.host}`));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const checked: string[] = [];
  // A name no resolver knows: only the guard's answer can lead the connection anywhere.
  class Pinned extends OutboundClient {
    override resolve(hostname: string): Promise<string> {
      checked.push(hostname);
      return Promise.resolve('127.0.0.1');
    }
  }
  const client = new Pinned({ timeout: 2000 });
  try {
    const res = await client.request({ url: `http://rebind.invalid:${port}/`, method: 'GET', headers: {} });
    const chunks: Buffer[] = [];
    for await (const c of res.body) chunks.push(c as Buffer);
    assert.equal(Buffer.concat(chunks).toString(), `host=rebind.invalid:${port}`);
    assert.deepEqual(checked, ['rebind.invalid']);
  } finally {
    await client.close();
    server.closeAllConnections();
    server.close();
  }
});
