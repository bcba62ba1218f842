/**
 * Creates or edits one rule: a form for the method, the conditions and a mock action (its headers,
 * latency and faults in their own components), and a JSON tab
 * for everything (other action types included). The API validates; its messages are shown as given.
 * Save and Cancel sit in a bar that sticks to the bottom of the window while the form runs past it, so
 * that they are in view however long the rule is.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, enc } from '../api';
import type { Condition, HeaderItem, Rule } from '../types';
import { ErrorBox } from '../ui';
import { ResponseTiming } from './fault-fields';
import { ResponseHeaders } from './response-headers';
import { TemplatePreview } from './template-preview';

const METHODS = ['*', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE'];
const OPERATORS: Record<string, string[]> = {
  path: ['equals', 'starts_with', 'contains', 'regex', 'template'],
  header: ['equals', 'contains', 'regex'],
  query_param: ['equals', 'contains', 'regex', 'exists'],
  body: ['contains', 'regex'],
  body_param: ['equals', 'not_equals', 'contains', 'not_contains', 'is_null', 'is_not_null'],
  state: [
    'equals',
    'not_equals',
    'contains',
    'not_contains',
    'greater_than',
    'less_than',
    'greater_than_equal',
    'less_than_equal',
  ],
  graphql: ['equals', 'contains', 'regex'],
  soap_action: ['equals'],
  grpc_method: ['equals', 'starts_with', 'contains', 'regex'],
};
const KEYED = new Set(['header', 'query_param', 'body_param', 'state']);
const NO_VALUE = new Set(['exists', 'is_null', 'is_not_null']);

/** A number field's text (a number the API sent, or the default). */
const num = (v: unknown, dflt: number): string => String(typeof v === 'number' ? v : dflt);

type Draft = Omit<Rule, 'id'> & { id?: string };

const blank = (): Draft => ({
  enabled: true,
  method: '*',
  description: '',
  conditions: [{ type: 'path', operator: 'starts_with', value: '/' }],
  action: {
    type: 'mock',
    status: 200,
    headers: [{ key: 'Content-Type', value: 'application/json' }],
    body: '{}',
    templated: false,
    delay: 0,
  },
});

/** The rule as the API takes it: no id (it is in the URL), empty description left out. */
function toBody(d: Draft): Record<string, unknown> {
  const { id: _id, ...rest } = d;
  return { ...rest, ...(rest.description ? {} : { description: undefined }) };
}

export function RuleEditor(props: { ep: string; rule: Rule | null; onDone: () => void }) {
  const [draft, setDraft] = useState<Draft>(props.rule ? structuredClone(props.rule) : blank());
  const [tab, setTab] = useState<'form' | 'json'>(
    props.rule && props.rule.action.type !== 'mock' ? 'json' : 'form',
  );
  const [json, setJson] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const base = `/endpoints/${enc(props.ep)}/rules`;
  const top = useRef<HTMLElement>(null);

  // The gRPC methods of the endpoint's descriptors, offered for grpc_method conditions (none: no list).
  const [grpcMethods, setGrpcMethods] = useState<string[]>([]);
  useEffect(() => {
    api
      .get<{ data: { type: string; services?: { name: string; methods: { name: string }[] }[] } }>(
        `/endpoints/${enc(props.ep)}/specs`,
      )
      .then((r) =>
        setGrpcMethods(
          r.data.type === 'grpc'
            ? (r.data.services ?? []).flatMap((s) => s.methods.map((m) => `${s.name}/${m.name}`))
            : [],
        ),
      )
      .catch(() => setGrpcMethods([]));
  }, [props.ep]);

  // Opened from a list scrolled down, the editor would start above the window: bring its top into view.
  useEffect(() => {
    const el = top.current;
    if (el && el.getBoundingClientRect().top < 0) el.scrollIntoView({ block: 'start' });
  }, []);

  const toJsonTab = () => {
    setJson(JSON.stringify(toBody(draft), null, 2));
    setTab('json');
  };
  const parseJson = (): Draft | null => {
    try {
      const parsed = JSON.parse(json) as Draft;
      setError(null);
      return { ...parsed, ...(draft.id ? { id: draft.id } : {}) };
    } catch (e) {
      setError(new Error(`The JSON does not parse: ${(e as Error).message}`));
      return null;
    }
  };
  const toFormTab = () => {
    const parsed = parseJson();
    if (!parsed) return;
    setDraft(parsed);
    setTab('form');
  };

  const save = async (ev: Event) => {
    ev.preventDefault();
    const d = tab === 'json' ? parseJson() : draft;
    if (!d) return;
    setBusy(true);
    setError(null);
    try {
      if (props.rule) await api.put(`${base}/${enc(props.rule.id)}`, toBody(d));
      else await api.post(base, toBody(d));
      props.onDone();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const setCond = (i: number, c: Partial<Condition>) =>
    setDraft({ ...draft, conditions: draft.conditions.map((old, j) => (j === i ? { ...old, ...c } : old)) });
  const action = draft.action;
  const setAction = (a: Record<string, unknown>) => setDraft({ ...draft, action: { ...action, ...a } });
  const headers = (action['headers'] as HeaderItem[] | undefined) ?? [];

  return (
    <section class="card" data-testid="rule-editor" ref={top}>
      <div class="row between">
        <h2>{props.rule ? 'Edit rule' : 'New rule'}</h2>
        <div class="tabs small-tabs">
          <button
            type="button"
            class={tab === 'form' ? 'tab active' : 'tab'}
            onClick={toFormTab}
            data-testid="tab-form"
          >
            Form
          </button>
          <button
            type="button"
            class={tab === 'json' ? 'tab active' : 'tab'}
            onClick={toJsonTab}
            data-testid="tab-json"
          >
            JSON
          </button>
        </div>
      </div>
      <form onSubmit={save} class="stack">
        {tab === 'json' ? (
          <textarea
            class="code"
            name="ruleJson"
            rows={24}
            spellcheck={false}
            value={json}
            onInput={(e) => setJson(e.currentTarget.value)}
          />
        ) : (
          <>
            <div class="row">
              <label>
                Method
                <select
                  name="method"
                  value={draft.method}
                  onChange={(e) => setDraft({ ...draft, method: e.currentTarget.value })}
                >
                  {METHODS.map((m) => (
                    <option key={m}>{m}</option>
                  ))}
                </select>
              </label>
              <label class="grow">
                Description
                <input
                  name="description"
                  value={draft.description ?? ''}
                  onInput={(e) => setDraft({ ...draft, description: e.currentTarget.value })}
                />
              </label>
              <label class="inline">
                <input
                  type="checkbox"
                  checked={draft.enabled}
                  onChange={(e) => setDraft({ ...draft, enabled: e.currentTarget.checked })}
                />{' '}
                enabled
              </label>
            </div>
            <datalist id="grpc-methods">
              {grpcMethods.map((m) => (
                <option key={m} value={m} />
              ))}
            </datalist>
            <fieldset>
              <legend>Conditions (all must hold)</legend>
              {draft.conditions.map((c, i) => (
                <div class="row cond" key={i} data-testid="condition">
                  <select
                    aria-label="type"
                    value={c.type}
                    onChange={(e) => {
                      const type = e.currentTarget.value;
                      setCond(i, { type, operator: OPERATORS[type]?.[0] ?? 'equals' });
                    }}
                  >
                    {Object.keys(OPERATORS).map((t) => (
                      <option key={t}>{t}</option>
                    ))}
                  </select>
                  {KEYED.has(c.type) && (
                    <input
                      aria-label="key"
                      placeholder="key"
                      value={c.key ?? ''}
                      onInput={(e) => setCond(i, { key: e.currentTarget.value })}
                    />
                  )}
                  {c.type === 'state' && (
                    <select
                      aria-label="state type"
                      value={c.stateType ?? 'string'}
                      onChange={(e) => setCond(i, { stateType: e.currentTarget.value })}
                    >
                      <option>counter</option>
                      <option>string</option>
                      <option>list</option>
                    </select>
                  )}
                  <select
                    aria-label="operator"
                    value={c.operator}
                    onChange={(e) => setCond(i, { operator: e.currentTarget.value })}
                  >
                    {(OPERATORS[c.type] ?? [c.operator]).map((o) => (
                      <option key={o}>{o}</option>
                    ))}
                  </select>
                  {!NO_VALUE.has(c.operator) && (
                    <input
                      class="grow"
                      aria-label="value"
                      name={`condition-${i}-value`}
                      list={c.type === 'grpc_method' ? 'grpc-methods' : undefined}
                      value={c.value ?? ''}
                      onInput={(e) => setCond(i, { value: e.currentTarget.value })}
                    />
                  )}
                  <button
                    type="button"
                    class="plain"
                    aria-label="Remove condition"
                    onClick={() =>
                      setDraft({ ...draft, conditions: draft.conditions.filter((_, j) => j !== i) })
                    }
                  >
                    ✕
                  </button>
                </div>
              ))}
              {draft.conditions.length < 5 && (
                <button
                  type="button"
                  class="plain"
                  onClick={() =>
                    setDraft({
                      ...draft,
                      conditions: [...draft.conditions, { type: 'path', operator: 'equals', value: '' }],
                    })
                  }
                >
                  + condition
                </button>
              )}
            </fieldset>
            {action.type === 'mock' ? (
              <fieldset>
                <legend>Response</legend>
                <div class="row">
                  <label>
                    Status
                    <input
                      name="status"
                      type="number"
                      value={num(action['status'], 200)}
                      onInput={(e) => setAction({ status: Number(e.currentTarget.value) })}
                    />
                  </label>
                  <label class="inline">
                    <input
                      type="checkbox"
                      name="templated"
                      checked={action['templated'] === true}
                      onChange={(e) => setAction({ templated: e.currentTarget.checked })}
                    />{' '}
                    templated body
                  </label>
                </div>
                <ResponseHeaders headers={headers} onChange={(h) => setAction({ headers: h })} />
                <ResponseTiming action={action} setAction={setAction} />
                <label>
                  Body
                  <textarea
                    class="code"
                    name="body"
                    rows={8}
                    spellcheck={false}
                    value={typeof action['body'] === 'string' ? action['body'] : ''}
                    onInput={(e) => setAction({ body: e.currentTarget.value })}
                  />
                </label>
                <p class="muted small">
                  Templated bodies use Handlebars: <code>{'{{path}}'}</code>,{' '}
                  <code>{"{{pathParam 'id'}}"}</code>, <code>{"{{queryParam 'id'}}"}</code>,{' '}
                  <code>{"{{faker 'person.firstName'}}"}</code>…
                </p>
                <TemplatePreview
                  ep={props.ep}
                  template={typeof action['body'] === 'string' ? action['body'] : ''}
                  rule={toBody(draft)}
                />
              </fieldset>
            ) : (
              <p class="muted">
                This rule's action is <code>{action.type}</code>: edit it in the JSON tab.
              </p>
            )}
          </>
        )}
        <div class="editor-actions" data-testid="editor-actions">
          <ErrorBox error={error} />
          <div class="row">
            <button type="submit" disabled={busy} data-testid="save-rule">
              Save
            </button>
            <button type="button" class="plain" onClick={props.onDone} data-testid="cancel-rule">
              Cancel
            </button>
          </div>
        </div>
      </form>
    </section>
  );
}
