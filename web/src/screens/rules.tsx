/**
 * The endpoint's rules in execution order: enable/disable, reorder (drag, the arrow buttons, or
 * Alt+↑/↓ on a focused row), delete, delete all, the editor, and Import HAR (har-import.tsx). Changes
 * made elsewhere (another browser, the API) arrive by the event stream: a deleted rule leaves the list
 * at once.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, enc, openEvents } from '../api';
import type { Rule } from '../types';
import { ConfirmButton, ErrorBox } from '../ui';
import { HarImport } from './har-import';
import { RuleEditor } from './rule-editor';

function summary(r: Rule): string {
  const conds = r.conditions
    .map(
      (c) =>
        `${c.type}${c.key ? `[${c.key}]` : ''} ${c.operator}${c.value !== undefined ? ' ' + c.value : ''}`,
    )
    .join(' and ');
  const status = typeof r.action['status'] === 'number' ? ` ${r.action['status']}` : '';
  return `${r.method} ${conds} → ${r.action.type}${status}`;
}

export function Rules(props: { ep: string }) {
  const { ep } = props;
  const base = `/endpoints/${enc(ep)}/rules`;
  const [rules, setRules] = useState<Rule[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const [dragged, setDragged] = useState<string | null>(null);
  const [importing, setImporting] = useState(false);

  const load = async () => {
    try {
      setRules((await api.get<{ data: Rule[] }>(base)).data);
    } catch (e) {
      setError(e);
    }
  };

  useEffect(() => {
    void load();
    const reload = () => void load();
    return openEvents(ep, {
      'rule.deleted': (data) => {
        const id = (data as { id?: string } | undefined)?.id;
        setRules((old) => (old && id ? old.filter((r) => r.id !== id) : old));
      },
      'rule.created': reload,
      'rule.updated': reload,
      'rules.deleted': reload,
      'rules.reordered': reload,
      reset: reload,
    });
  }, [ep]);

  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError(e);
    }
    await load();
  };

  /** Sends the whole order: every id, so that the result does not depend on what others did meanwhile. */
  const reorder = (ids: string[]) => {
    if (!rules) return;
    const byId = new Map(rules.map((r) => [r.id, r]));
    setRules(ids.map((id) => byId.get(id)).filter((r): r is Rule => r !== undefined));
    void act(() => api.post(`${base}/reorder`, { order: ids }));
  };
  const move = (index: number, by: number) => {
    if (!rules) return;
    const to = index + by;
    if (to < 0 || to >= rules.length) return;
    const ids = rules.map((r) => r.id);
    const [id] = ids.splice(index, 1);
    if (id) ids.splice(to, 0, id);
    reorder(ids);
  };
  const dropOn = (target: string) => {
    if (!rules || !dragged || dragged === target) return;
    const ids = rules.map((r) => r.id).filter((id) => id !== dragged);
    ids.splice(ids.indexOf(target), 0, dragged);
    setDragged(null);
    reorder(ids);
  };

  if (editing)
    return (
      <RuleEditor
        ep={ep}
        rule={editing === 'new' ? null : editing}
        onDone={() => {
          setEditing(null);
          void load();
        }}
      />
    );

  return (
    <section class="card">
      <div class="row between">
        <h2>Rules</h2>
        <div class="row">
          <button type="button" onClick={() => setEditing('new')} data-testid="new-rule">
            New rule
          </button>
          <button type="button" class="plain" onClick={() => setImporting(true)} data-testid="import-har">
            Import HAR
          </button>
          {rules && rules.length > 0 && (
            <ConfirmButton
              label="Delete all"
              confirm="Delete every rule of this endpoint?"
              onConfirm={() => void act(() => api.del(base))}
              testid="delete-all-rules"
            />
          )}
        </div>
      </div>
      <p class="muted small">
        First match wins. Drag a rule, use the arrows, or press Alt+↑/↓ on a focused rule to move it.
      </p>
      <ErrorBox error={error} />
      {importing && <HarImport ep={ep} onImported={() => void load()} onClose={() => setImporting(false)} />}
      {rules === null ? (
        <p class="muted">Loading…</p>
      ) : rules.length === 0 ? (
        <p class="muted" data-testid="no-rules">
          No rules: every request goes through the fallback chain (proxy, tunnel, OpenAPI, default response,
          echo).
        </p>
      ) : (
        <ol class="rules" data-testid="rules">
          {rules.map((r, i) => (
            <li
              key={r.id}
              data-testid="rule-row"
              data-id={r.id}
              class={`rule${r.enabled ? '' : ' disabled'}${dragged === r.id ? ' dragging' : ''}`}
              draggable
              tabIndex={0}
              onDragStart={(ev) => {
                setDragged(r.id);
                ev.dataTransfer?.setData('text/plain', r.id);
              }}
              onDragOver={(ev) => ev.preventDefault()}
              onDrop={(ev) => {
                ev.preventDefault();
                dropOn(r.id);
              }}
              onDragEnd={() => setDragged(null)}
              onKeyDown={(ev) => {
                if (ev.altKey && ev.key === 'ArrowUp') {
                  ev.preventDefault();
                  move(i, -1);
                } else if (ev.altKey && ev.key === 'ArrowDown') {
                  ev.preventDefault();
                  move(i, 1);
                }
              }}
            >
              <span class="handle" aria-hidden="true">
                ⠿
              </span>
              <label class="inline">
                <input
                  type="checkbox"
                  checked={r.enabled}
                  aria-label="enabled"
                  onChange={(e) =>
                    void act(() => api.patch(`${base}/${enc(r.id)}`, { enabled: e.currentTarget.checked }))
                  }
                />
              </label>
              <div class="rule-text">
                <div>{r.description || <span class="muted">(no description)</span>}</div>
                <div class="mono small muted">{summary(r)}</div>
              </div>
              <div class="row">
                <button
                  type="button"
                  class="plain"
                  aria-label="Move up"
                  disabled={i === 0}
                  onClick={() => move(i, -1)}
                >
                  ↑
                </button>
                <button
                  type="button"
                  class="plain"
                  aria-label="Move down"
                  disabled={i === rules.length - 1}
                  onClick={() => move(i, 1)}
                >
                  ↓
                </button>
                <button type="button" class="plain" onClick={() => setEditing(r)}>
                  Edit
                </button>
                <ConfirmButton
                  label="Delete"
                  confirm="Delete?"
                  onConfirm={() => void act(() => api.del(`${base}/${enc(r.id)}`))}
                  testid="delete-rule"
                />
              </div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
