/**
 * The endpoint's settings, one card per group, each saved on its own (a PATCH of that group): proxy,
 * local tunnel (with the command to run), OpenAPI document (with its contract checking), default
 * response, CORS, rate limit, security header, plan, and chaos and faults (chaos-card.tsx). The API's
 * messages are shown next to the group they concern.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, enc } from '../api';
import { shellQuote } from '../curl';
import { CopyButton, ErrorBox } from '../ui';
import { ChaosCards, type ChaosT, type FaultsT } from './chaos-card';
import { Group } from './settings-group';
import { SpecCard, type ValidationMode } from './spec-card';

type Json = Record<string, unknown>;
interface SettingsT {
  proxy: { targetUrl?: string | null; ignoreSSLErrors?: boolean; record?: boolean };
  localTunnel: boolean;
  cors: { origins: string[] };
  rateLimit: { enabled: boolean; rate: number; period: string };
  security: { enabled: boolean; headerKey?: string; headerValue?: string };
  defaultResponse: {
    status: number;
    headers?: Record<string, string> | { key: string; value: string }[];
    body?: string;
  };
  plan?: string;
  chaos: ChaosT;
  faults: FaultsT;
  /** Contract checking against the OpenAPI document (docs/contract-testing.md). */
  openapi?: { validation?: ValidationMode };
}

/** The API's answer: a default response not set yet is null (or left out). */
type Answer = Omit<SettingsT, 'defaultResponse'> & { defaultResponse?: SettingsT['defaultResponse'] | null };
const normalize = (a: Answer): SettingsT => ({
  ...a,
  defaultResponse: a.defaultResponse ?? { status: 200, headers: {}, body: '' },
});

export function Settings(props: { ep: string }) {
  const { ep } = props;
  const path = `/endpoints/${enc(ep)}/settings`;
  const [s, setS] = useState<SettingsT | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [headersText, setHeadersText] = useState('');

  const load = async () => {
    try {
      const got = normalize(await api.get<Answer>(path));
      setS(got);
      setHeadersText(JSON.stringify(got.defaultResponse.headers ?? {}, null, 2));
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    void load();
  }, [ep]);

  if (error) return <ErrorBox error={error} />;
  if (!s) return <p class="muted">Loading…</p>;
  const patch = async (body: Json) => {
    setS(normalize(await api.patch<Answer>(path, body)));
  };
  const set = <K extends keyof SettingsT>(k: K, v: SettingsT[K]) => setS({ ...s, [k]: v });
  const tunnelCommand = `mockingbird tunnel --endpoint ${shellQuote(ep)} --port 3000 --server ${shellQuote(location.origin)}`;

  return (
    <div class="settings">
      <Group
        title="Proxy"
        testid="settings-proxy"
        save={() => patch({ proxy: { ...s.proxy, targetUrl: s.proxy.targetUrl?.trim() || undefined } })}
      >
        <p class="muted small">
          Requests no rule answers are forwarded to this URL (and, if recorded, turned into rules).
        </p>
        <label>
          Target URL
          <input
            name="targetUrl"
            placeholder="https://api.example.com"
            value={s.proxy.targetUrl ?? ''}
            onInput={(e) => set('proxy', { ...s.proxy, targetUrl: e.currentTarget.value })}
          />
        </label>
        <label class="inline">
          <input
            type="checkbox"
            checked={s.proxy.ignoreSSLErrors === true}
            onChange={(e) => set('proxy', { ...s.proxy, ignoreSSLErrors: e.currentTarget.checked })}
          />{' '}
          ignore TLS certificate errors
        </label>
        <label class="inline">
          <input
            type="checkbox"
            checked={s.proxy.record === true}
            onChange={(e) => set('proxy', { ...s.proxy, record: e.currentTarget.checked })}
          />{' '}
          record answers as rules
        </label>
      </Group>
      <Group title="Local tunnel" testid="settings-tunnel" save={() => patch({ localTunnel: s.localTunnel })}>
        <label class="inline">
          <input
            type="checkbox"
            checked={s.localTunnel}
            onChange={(e) => set('localTunnel', e.currentTarget.checked)}
          />{' '}
          forward requests no rule answers to a service on your machine
        </label>
        <p class="muted small">
          Then run, with your service's port and an API key in <code>MOCKINGBIRD_API_KEY</code>:
        </p>
        <div class="row">
          <code class="command" data-testid="tunnel-command">
            {tunnelCommand}
          </code>
          <CopyButton text={tunnelCommand} />
        </div>
      </Group>
      <SpecCard
        ep={ep}
        validation={s.openapi?.validation ?? 'report'}
        saveValidation={(validation) => patch({ openapi: { ...s.openapi, validation } })}
      />
      <Group
        title="Default response"
        testid="settings-default"
        save={async () => {
          let headers: unknown;
          try {
            headers = JSON.parse(headersText || '{}');
          } catch {
            throw new ApiError(400, 'validation_error', 'The headers are not valid JSON.');
          }
          await patch({ defaultResponse: { ...s.defaultResponse, headers } });
        }}
      >
        <p class="muted small">The answer when no rule, proxy, tunnel or OpenAPI operation does.</p>
        <label>
          Status
          <input
            type="number"
            name="defaultStatus"
            value={String(s.defaultResponse.status)}
            onInput={(e) =>
              set('defaultResponse', { ...s.defaultResponse, status: Number(e.currentTarget.value) })
            }
          />
        </label>
        <label>
          Headers (JSON)
          <textarea
            class="code"
            rows={3}
            value={headersText}
            onInput={(e) => setHeadersText(e.currentTarget.value)}
          />
        </label>
        <label>
          Body
          <textarea
            class="code"
            rows={4}
            value={s.defaultResponse.body ?? ''}
            onInput={(e) => set('defaultResponse', { ...s.defaultResponse, body: e.currentTarget.value })}
          />
        </label>
      </Group>
      <Group title="CORS" testid="settings-cors" save={() => patch({ cors: s.cors })}>
        <label>
          Allowed origins (one per line; <code>*</code> for any)
          <textarea
            class="code"
            rows={3}
            value={s.cors.origins.join('\n')}
            onInput={(e) =>
              set('cors', {
                origins: e.currentTarget.value
                  .split('\n')
                  .map((o) => o.trim())
                  .filter(Boolean),
              })
            }
          />
        </label>
      </Group>
      <Group title="Rate limit" testid="settings-rate" save={() => patch({ rateLimit: s.rateLimit })}>
        <div class="row">
          <label class="inline">
            <input
              type="checkbox"
              checked={s.rateLimit.enabled}
              onChange={(e) => set('rateLimit', { ...s.rateLimit, enabled: e.currentTarget.checked })}
            />{' '}
            enabled
          </label>
          <label>
            Requests
            <input
              type="number"
              value={String(s.rateLimit.rate)}
              onInput={(e) => set('rateLimit', { ...s.rateLimit, rate: Number(e.currentTarget.value) })}
            />
          </label>
          <label>
            per
            <select
              value={s.rateLimit.period}
              onChange={(e) => set('rateLimit', { ...s.rateLimit, period: e.currentTarget.value })}
            >
              <option>Second</option>
              <option>Minute</option>
              <option>Hour</option>
            </select>
          </label>
        </div>
      </Group>
      <Group title="Security header" testid="settings-security" save={() => patch({ security: s.security })}>
        <p class="muted small">Requests without this header and value are refused with 401.</p>
        <label class="inline">
          <input
            type="checkbox"
            checked={s.security.enabled}
            onChange={(e) => set('security', { ...s.security, enabled: e.currentTarget.checked })}
          />{' '}
          enabled
        </label>
        <div class="row">
          <label>
            Header
            <input
              value={s.security.headerKey ?? ''}
              onInput={(e) => set('security', { ...s.security, headerKey: e.currentTarget.value })}
            />
          </label>
          <label class="grow">
            Value
            <input
              value={s.security.headerValue ?? ''}
              onInput={(e) => set('security', { ...s.security, headerValue: e.currentTarget.value })}
            />
          </label>
        </div>
      </Group>
      <ChaosCards chaos={s.chaos} faults={s.faults} patch={patch} />
      <Group title="Plan" testid="settings-plan" save={() => patch({ plan: s.plan })}>
        <p class="muted small">Limits of this endpoint (an admin key may change it).</p>
        <input name="plan" value={s.plan ?? ''} onInput={(e) => set('plan', e.currentTarget.value)} />
      </Group>
    </div>
  );
}
