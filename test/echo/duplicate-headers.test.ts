/**
 * Duplicate headers (SPEC §2, seed warning table): one `Duplicate headers found: <name>` warning per
 * duplicated name, in lower case, the last value shown, status 200. Only a raw socket sends repeats.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { rawEcho, rawHttp } from './echo-helpers.js';

void describe('duplicate headers', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({}, { listen: true });
  });
  after(async () => {
    await app.stop();
  });

  void it('warns once for a header sent twice and shows its last value', async () => {
    const { doc } = await rawEcho(
      app.port,
      rawHttp('GET', '/e/echo/dup', [
        ['X-Dup', 'one'],
        ['X-Dup', 'two'],
      ]),
    );
    assert.deepEqual(doc.warnings, ['Duplicate headers found: x-dup']);
    assert.equal(doc.headers['x-dup'], 'two');
  });

  void it('warns once for a header sent three times', async () => {
    const { doc } = await rawEcho(
      app.port,
      rawHttp('GET', '/e/echo/dup', [
        ['X-Dup', '1'],
        ['X-Dup', '2'],
        ['X-Dup', '3'],
      ]),
    );
    assert.deepEqual(doc.warnings, ['Duplicate headers found: x-dup']);
    assert.equal(doc.headers['x-dup'], '3');
  });

  void it('treats names differing only in case as duplicates and reports the lower-case name', async () => {
    const { doc } = await rawEcho(
      app.port,
      rawHttp('GET', '/e/echo/dup', [
        ['X-Request-ID', 'a'],
        ['x-request-id', 'b'],
      ]),
    );
    assert.deepEqual(doc.warnings, ['Duplicate headers found: x-request-id']);
    assert.equal(doc.headers['x-request-id'], 'b');
  });

  void it('gives one warning per duplicated name, in order of first appearance', async () => {
    const { doc } = await rawEcho(
      app.port,
      rawHttp('GET', '/e/echo/dup', [
        ['Accept', 'text/html'],
        ['X-B', '1'],
        ['X-A', '1'],
        ['X-B', '2'],
        ['accept', 'application/json'],
        ['X-A', '2'],
        ['X-Single', 'only'],
      ]),
    );
    assert.deepEqual(doc.warnings, [
      'Duplicate headers found: accept',
      'Duplicate headers found: x-b',
      'Duplicate headers found: x-a',
    ]);
    assert.equal(doc.headers['accept'], 'application/json');
    assert.equal(doc.headers['x-single'], 'only');
  });

  void it('lists the body warnings first, then the duplicate-header ones', async () => {
    const { doc } = await rawEcho(
      app.port,
      rawHttp(
        'POST',
        '/e/echo/dup',
        [
          ['X-Dup', '1'],
          ['X-Dup', '2'],
        ],
        'text',
      ),
    );
    assert.deepEqual(doc.warnings, [
      'Missing Content-Type header for the POST request.',
      'Duplicate headers found: x-dup',
    ]);
  });

  void it('has no warnings field when no header repeats', async () => {
    const { doc } = await rawEcho(app.port, rawHttp('GET', '/e/echo/dup', [['X-One', '1']]));
    assert.equal('warnings' in doc, false);
  });
});
