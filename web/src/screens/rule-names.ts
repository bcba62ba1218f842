/**
 * How the request log names the rule that answered a request: by its description, else by its place in
 * the current order ("rule 3"), else (deleted since, or not loaded yet) by the start of its id. The
 * endpoint's rules are fetched once per page and again when a rule event says they changed, never per
 * row.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, enc } from '../api';
import type { Rule } from '../types';

/** The text shown for a rule, and the longer text of its tooltip. */
export interface RuleName {
  label: string;
  title: string;
}

const shortId = (id: string): string => id.slice(0, 8);

/** Names the rule `id` among `rules` (null while they load). */
export function ruleName(rules: readonly Rule[] | null, id: string | null | undefined): RuleName {
  if (!id) return { label: 'matched', title: 'a rule matched (its id was not recorded)' };
  if (rules === null) return { label: shortId(id), title: `rule ${id}` };
  const index = rules.findIndex((r) => r.id === id);
  const rule = rules[index];
  if (!rule) return { label: `${shortId(id)} (deleted)`, title: `rule ${id}, deleted since` };
  const place = `rule ${index + 1}`;
  const description = rule.description?.trim();
  return description
    ? { label: description, title: `${description} (${place}, ${id})` }
    : { label: place, title: `${place} of the current order, no description (${id})` };
}

/**
 * The endpoint's rules, and a function that fetches them again (for the page's rule events). A failed
 * fetch leaves the previous list: names then fall back to ids, which is all the log needs.
 */
export function useRules(ep: string): [Rule[] | null, () => void] {
  const [rules, setRules] = useState<Rule[] | null>(null);
  // Only the latest fetch's answer is kept: answers of overlapping fetches may arrive out of order.
  const latest = useRef(0);
  const reload = useCallback(() => {
    const n = ++latest.current;
    api.get<{ data: Rule[] }>(`/endpoints/${enc(ep)}/rules`).then(
      (page) => {
        if (n === latest.current) setRules(page.data);
      },
      () => undefined,
    );
  }, [ep]);
  useEffect(reload, [reload]);
  return [rules, reload];
}
