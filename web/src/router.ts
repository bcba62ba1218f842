/** A small client router over the History API: the path is the state, links push it. */
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();

export function navigate(to: string, replace = false): void {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const fn of listeners) fn();
}

window.addEventListener('popstate', () => {
  for (const fn of listeners) fn();
});

/** The current path, re-rendering on navigation. */
export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const fn = () => setPath(location.pathname);
    listeners.add(fn);
    return () => {
      listeners.delete(fn);
    };
  }, []);
  return path;
}

/** Click handler of in-app links: navigates without reloading unless a modifier asks for a new tab. */
export function follow(ev: MouseEvent): void {
  if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  const a = (ev.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!a) return;
  ev.preventDefault();
  navigate(a.getAttribute('href') ?? '/');
}
