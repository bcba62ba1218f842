/**
 * The live request log: newest first, new requests pushed by the event stream (batched, so that a
 * burst costs one render), older pages loaded on scroll through the API's cursor. At most MAX_ROWS
 * rows are kept: when live rows push the oldest out, scrolling down continues from the oldest kept.
 */
import { memo } from 'preact/compat';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, enc, openEvents } from '../api';
import { entryDate, entryMs, violationCount, type Entry, type Page } from '../types';
import { ConfirmButton, CopyButton, ErrorBox, formatTime } from '../ui';
import { RequestDetail } from './detail';
import { BEHAVIORS, filterQuery, hasFilters, NO_FILTERS, passes, type Filters } from './log-filters';
import { ruleName, useRules } from './rule-names';

const PAGE = 50;
const MAX_ROWS = 1000;
const FLUSH_MS = 50;

/** One row; the rule's name comes as text (a new rules list re-renders only rows whose name changed). */
const Row = memo(function Row(props: {
  e: Entry;
  ruleLabel: string;
  ruleTitle: string;
  selected: boolean;
  onSelect: (id: string) => void;
}) {
  const { e } = props;
  const violations = violationCount(e);
  return (
    <tr
      class={props.selected ? 'selected' : undefined}
      data-testid="request-row"
      data-id={e.id}
      tabIndex={0}
      onClick={() => props.onSelect(e.id)}
      onKeyDown={(ev) => {
        if (ev.key === 'Enter') props.onSelect(e.id);
      }}
    >
      <td class="time">{formatTime(entryDate(e))}</td>
      <td class="method-cell">
        <span class={`method m-${e.method.toLowerCase()}`}>{e.method}</span>
      </td>
      <td class="path" title={e.path}>
        {e.path}
      </td>
      <td class="status-cell">
        <span class={`status s${String(e.status)[0]}`}>{e.status}</span>
        {violations > 0 && (
          <span
            class="badge violations"
            data-testid="violation-badge"
            title={`${violations} OpenAPI contract violation${violations === 1 ? '' : 's'}`}
          >
            ✗ {violations}
          </span>
        )}
      </td>
      <td class="behavior">{e.behavior}</td>
      <td class="rule" data-testid="row-rule" title={props.ruleTitle}>
        {props.ruleLabel}
      </td>
      <td class="num took">{entryMs(e)} ms</td>
    </tr>
  );
});

/** The empty log says how to send the first request: the path-form URL as a curl line to copy. */
function EmptyLog(props: { ep: string }) {
  const line = `curl ${location.origin}/e/${enc(props.ep)}/`;
  return (
    <span data-testid="empty-log">
      No requests yet: send one to this endpoint, e.g. <code>{line}</code>{' '}
      <CopyButton text={line} label="Copy curl" />
    </span>
  );
}

export function RequestLog(props: { ep: string }) {
  const { ep } = props;
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [rows, setRows] = useState<Entry[]>([]);
  const [more, setMore] = useState<{ cursor?: string; before?: string } | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [live, setLive] = useState(true);
  const liveRef = useRef(live);
  liveRef.current = live;
  const [rules, reloadRules] = useRules(ep);
  const pending = useRef<Entry[]>([]);
  const timer = useRef<number | undefined>(undefined);
  const filtersRef = useRef(filters);
  filtersRef.current = filters;
  const generation = useRef(0);

  const fetchPage = async (f: Filters, from: { cursor?: string; before?: string } | null) => {
    const q = filterQuery(f);
    q.set('limit', String(PAGE));
    if (from?.cursor) q.set('cursor', from.cursor);
    if (from?.before && !q.has('dateTo')) q.set('dateTo', from.before);
    return api.get<Page<Entry>>(`/endpoints/${enc(ep)}/requests?${q.toString()}`);
  };
  const nextFrom = (page: Page<Entry>) =>
    page.pagination.hasMore && page.pagination.cursor ? { cursor: page.pagination.cursor } : null;

  const reload = useCallback(
    async (f: Filters) => {
      const gen = ++generation.current;
      setLoading(true);
      setError(null);
      try {
        const page = await fetchPage(f, null);
        if (gen !== generation.current) return;
        pending.current = [];
        setRows(page.data);
        setMore(nextFrom(page));
      } catch (e) {
        setError(e);
      } finally {
        if (gen === generation.current) setLoading(false);
      }
    },
    [ep],
  );

  const loadMore = async () => {
    if (!more || loading) return;
    const gen = generation.current;
    setLoading(true);
    try {
      const page = await fetchPage(filters, more);
      if (gen !== generation.current) return;
      setRows((old) => {
        const seen = new Set(old.map((r) => r.id));
        return [...old, ...page.data.filter((r) => !seen.has(r.id))];
      });
      setMore(nextFrom(page));
    } catch (e) {
      setError(e);
    } finally {
      setLoading(false);
    }
  };

  useEffect(() => {
    void reload(filters);
  }, [filters, reload]);

  // One event stream per page. Live entries (while `live` is ticked) are collected as they come and
  // rendered together every FLUSH_MS; a rule event refreshes the rules the log names.
  useEffect(() => {
    const flush = () => {
      timer.current = undefined;
      const fresh = pending.current;
      pending.current = [];
      if (fresh.length === 0) return;
      setRows((old) => {
        const seen = new Set(old.map((r) => r.id));
        const add = fresh.filter((r) => !seen.has(r.id)).reverse();
        const all = [...add, ...old];
        if (all.length <= MAX_ROWS) return all;
        const kept = all.slice(0, MAX_ROWS);
        const last = kept[kept.length - 1];
        // Rows dropped here are reached again by scrolling: from the oldest kept row's time backwards.
        if (last) setMore({ before: entryDate(last) });
        return kept;
      });
    };
    const close = openEvents(ep, {
      'request.created': (data) => {
        const e = data as Entry | undefined;
        if (!liveRef.current || !e || !passes(filtersRef.current, e)) return;
        pending.current.push(e);
        timer.current ??= window.setTimeout(flush, FLUSH_MS);
      },
      'requests.deleted': () => void reload(filtersRef.current),
      // Events were missed (another instance, an outage): the history and the rules are read again.
      reset: () => {
        void reload(filtersRef.current);
        reloadRules();
      },
      'rule.created': reloadRules,
      'rule.updated': reloadRules,
      'rule.deleted': reloadRules,
      'rules.deleted': reloadRules,
      'rules.reordered': reloadRules,
    });
    return () => {
      close();
      if (timer.current !== undefined) clearTimeout(timer.current);
      timer.current = undefined;
    };
  }, [ep, reload, reloadRules]);

  // Infinite scroll: the sentinel below the table asks for the next page when it comes into view.
  const sentinel = useRef<HTMLDivElement>(null);
  const loadMoreRef = useRef(loadMore);
  loadMoreRef.current = loadMore;
  useEffect(() => {
    const el = sentinel.current;
    if (!el) return undefined;
    const io = new IntersectionObserver((items) => {
      if (items.some((i) => i.isIntersecting)) void loadMoreRef.current();
    });
    io.observe(el);
    return () => io.disconnect();
  }, []);

  const deleteMatching = async () => {
    setError(null);
    try {
      const q = filterQuery(filters).toString();
      await api.del(`/endpoints/${enc(ep)}/requests${q ? '?' + q : ''}`);
      setSelected(null);
      await reload(filters);
    } catch (e) {
      setError(e);
    }
  };

  const field = (name: keyof Filters, label: string, placeholder = '') => (
    <label>
      {label}
      <input
        name={name}
        value={draft[name]}
        placeholder={placeholder}
        onInput={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })}
      />
    </label>
  );

  const yesNo = (name: 'isMultipart' | 'hasAttachments', label: string) => (
    <label>
      {label}
      <select
        name={name}
        value={draft[name]}
        onChange={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })}
      >
        <option value="">any</option>
        <option value="true">yes</option>
        <option value="false">no</option>
      </select>
    </label>
  );

  return (
    <div class="log-layout">
      <section class="card log-list">
        <form
          class="filters"
          onSubmit={(ev) => {
            ev.preventDefault();
            setFilters({ ...draft });
          }}
        >
          {field('method', 'Method', 'GET')}
          {field('path', 'Path', '/users or /^\\/v\\d/')}
          {field('status', 'Status', '500')}
          <label>
            Behavior
            <select
              name="behavior"
              value={draft.behavior}
              onChange={(e) => setDraft({ ...draft, behavior: e.currentTarget.value })}
            >
              <option value="">any</option>
              {BEHAVIORS.map((b) => (
                <option key={b}>{b}</option>
              ))}
            </select>
          </label>
          <label>
            Rule matched
            <select
              name="ruleMatched"
              value={draft.ruleMatched}
              onChange={(e) => setDraft({ ...draft, ruleMatched: e.currentTarget.value })}
            >
              <option value="">any</option>
              <option value="true">yes</option>
              <option value="false">no</option>
            </select>
          </label>
          <label>
            Contract
            <select
              name="validation"
              value={draft.validation}
              onChange={(e) => setDraft({ ...draft, validation: e.currentTarget.value })}
            >
              <option value="">any</option>
              <option value="failed">broken</option>
              <option value="passed">kept</option>
            </select>
          </label>
          {yesNo('isMultipart', 'Multipart')}
          {yesNo('hasAttachments', 'Files')}
          {field('dateRange', 'Last', '15m')}
          {field('requestBody', 'Request body', 'text')}
          {field('responseBody', 'Response body', 'text')}
          <div class="filter-actions">
            <button type="submit" data-testid="apply-filters">
              Apply
            </button>
            <button
              type="button"
              class="plain"
              onClick={() => {
                setDraft(NO_FILTERS);
                setFilters(NO_FILTERS);
              }}
            >
              Clear
            </button>
            {/* Plain downloads: the session cookie authorises a same-origin GET; the filters apply. */}
            {(['har', 'ndjson'] as const).map((format) => (
              <a
                key={format}
                class="button plain"
                data-testid={`export-${format}`}
                download={`${ep}-requests.${format}`}
                href={`/api/v2/endpoints/${enc(ep)}/requests?${new URLSearchParams([
                  ...filterQuery(filters),
                  ['format', format],
                ]).toString()}`}
              >
                Export {format === 'har' ? 'HAR' : 'NDJSON'}
              </a>
            ))}
            <ConfirmButton
              label={hasFilters(filters) ? 'Delete matching' : 'Delete all'}
              confirm={
                hasFilters(filters)
                  ? 'Delete every request matching these filters?'
                  : 'Delete the whole history?'
              }
              onConfirm={() => void deleteMatching()}
              testid="delete-matching"
            />
            <label class="inline">
              <input type="checkbox" checked={live} onChange={(e) => setLive(e.currentTarget.checked)} /> live
            </label>
          </div>
        </form>
        <ErrorBox error={error} />
        <div class="table-scroll">
          <table class="log" data-testid="request-log">
            <thead>
              <tr>
                <th>Time</th>
                <th>Method</th>
                <th>Path</th>
                <th>Status</th>
                <th>Behavior</th>
                <th>Rule</th>
                <th>Took</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((e) => {
                const name = e.rule.matched
                  ? ruleName(rules, e.rule.ruleId)
                  : { label: '–', title: 'no rule' };
                return (
                  <Row
                    key={e.id}
                    e={e}
                    ruleLabel={name.label}
                    ruleTitle={name.title}
                    selected={e.id === selected}
                    onSelect={setSelected}
                  />
                );
              })}
            </tbody>
          </table>
          <div ref={sentinel} class="sentinel muted small">
            {loading ? 'Loading…' : more ? ' ' : rows.length === 0 ? <EmptyLog ep={ep} /> : 'End of history.'}
          </div>
        </div>
      </section>
      {selected && <RequestDetail ep={ep} id={selected} rules={rules} onClose={() => setSelected(null)} />}
    </div>
  );
}
