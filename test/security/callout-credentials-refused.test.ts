/**
 * Stops: a callout URL with credentials (`http://user:password@host/`) accepted when saved, the call
 * then answered 500, and the password kept in the history (issue 30, item 3). Refused with a 400 naming
 * `…/action/callout/url` on every way a rule is saved (POST one rule, PUT the list, PUT and PATCH one
 * rule, a mocks-as-code file), the password never echoed; a rule stored before the check answers 502
 * `target_refused`, and neither the answer nor the history holds the password.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadConfigFile } from '../../src/config-file/index.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import { tempFiles } from '../config-file/helpers.js';
import { send } from '../proxy/proxy-helpers.js';
import { calloutApp } from '../callout/callout-helpers.js';
import type { TestApp } from '../helpers/app.js';

const PASSWORD = 's3cret-pw';
const URL_WITH_CREDENTIALS = `http://user:${PASSWORD}@127.0.0.1:9/hook`;

const calloutRule = (url: string) => ({
  method: 'GET',
  conditions: [{ type: 'path', operator: 'equals', value: '/hook' }],
  action: { type: 'callout', behavior: 'sync', callout: { url } },
});

function assertRefused(r: { status: number; text: string; body: unknown }, path: string): void {
  assert.equal(r.status, 400, r.text);
  const err = (r.body as { error: { code: string; details: { path: string; message: string }[] } }).error;
  assert.equal(err.code, 'validation_error');
  const d = err.details.find((x) => x.path === path);
  assert.ok(d, `a detail at ${path}: ${r.text}`);
  assert.match(d.message, /credentials/);
  assert.ok(!r.text.includes(PASSWORD), `the answer repeats the password: ${r.text}`);
}

describe('callout URLs with credentials', () => {
  let app: TestApp & { endpointUrl: string };
  before(async () => (app = await calloutApp()));
  after(() => app.stop());

  it('POST …/rules: 400 at /action/callout/url, nothing stored', async () => {
    assertRefused(
      await call(app, 'POST', '/endpoints/shop/rules', calloutRule(URL_WITH_CREDENTIALS)),
      '/action/callout/url',
    );
    assertRefused(
      await call(app, 'POST', '/endpoints/shop/rules', calloutRule('http://only-user@127.0.0.1:9/')),
      '/action/callout/url',
    );
    assert.equal(await app.ctx.store.countRules('shop'), 0);
  });

  it('PUT …/rules (the list): 400 at /rules/<i>/action/callout/url, nothing replaced', async () => {
    const ok = calloutRule('http://127.0.0.1:9/hook');
    assertRefused(
      await call(app, 'PUT', '/endpoints/shop/rules', { rules: [ok, calloutRule(URL_WITH_CREDENTIALS)] }),
      '/rules/1/action/callout/url',
    );
    assert.equal(await app.ctx.store.countRules('shop'), 0);
  });

  it('PUT and PATCH …/rules/:id: 400, the rule unchanged', async () => {
    const created = await call(app, 'POST', '/endpoints/shop/rules', calloutRule('http://127.0.0.1:9/hook'));
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as string;
    assertRefused(
      await call(app, 'PUT', `/endpoints/shop/rules/${id}`, calloutRule(URL_WITH_CREDENTIALS)),
      '/action/callout/url',
    );
    assertRefused(
      await call(app, 'PATCH', `/endpoints/shop/rules/${id}`, {
        action: calloutRule(URL_WITH_CREDENTIALS).action,
      }),
      '/action/callout/url',
    );
    const kept = await call(app, 'GET', `/endpoints/shop/rules/${id}`);
    assert.equal(kept.body.action.callout.url, 'http://127.0.0.1:9/hook');
    await call(app, 'DELETE', '/endpoints/shop/rules');
  });

  it('a mocks-as-code file: refused naming the field, nothing applied', async () => {
    const yaml = `endpoints:
  filed:
    rules:
      - conditions:
          - { type: path, operator: equals, value: /hook }
        action:
          type: callout
          behavior: sync
          callout: { url: "${URL_WITH_CREDENTIALS}" }
`;
    const file = join(tempFiles({ 'm.yaml': yaml }), 'm.yaml');
    const err = await loadConfigFile(app.ctx, file).then(
      () => assert.fail('loaded'),
      (e: unknown) => e as Error,
    );
    assert.match(err.message, /\/endpoints\/filed\/rules\/0\/action\/callout\/url: .*credentials/);
    assert.ok(!err.message.includes(PASSWORD), err.message);
    assert.equal(await app.ctx.store.getEndpoint('filed'), undefined);
  });

  it('a rule stored before the check: 502 target_refused (not 500), the password in neither answer nor history', async () => {
    await createEndpoint(app, 'legacy');
    const { action } = calloutRule(URL_WITH_CREDENTIALS);
    await app.ctx.store.appendRule('legacy', {
      id: 'old-rule',
      data: { enabled: true, method: 'GET', description: '', conditions: [], action },
    });
    app.ctx.endpoints.invalidate('legacy');
    const res = await send(`${app.url}/e/legacy/hook`);
    assert.equal(res.status, 502, res.text);
    assert.equal((JSON.parse(res.text) as { error: { code: string } }).error.code, 'target_refused');
    assert.ok(!res.text.includes(PASSWORD), res.text);
    await app.ctx.history.flush();
    const [entry] = (await app.ctx.store.listHistory('legacy', {}, 10)).data;
    assert.equal(entry?.behavior, 'callout');
    assert.equal(entry?.callout?.state, 'failed');
    const stored = JSON.stringify(entry);
    assert.ok(!stored.includes(PASSWORD), `the history keeps the password: ${stored}`);
    assert.match(entry?.callout?.request.url ?? '', /\[REDACTED\]@127\.0\.0\.1/);
  });
});
