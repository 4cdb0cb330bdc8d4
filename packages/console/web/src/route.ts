import { useEffect, useState } from 'preact/hooks';

/** The console's pages live under /console/; all list state is in the query string, so reload and Back restore it. */
export const BASE = '/console/';

export interface Location {
  /** The path below /console/, split in segments (URL-decoded). */
  segments: string[];
  query: URLSearchParams;
}

function current(): Location {
  const rest = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '';
  return {
    segments: rest.split('/').filter(Boolean).map(decodeURIComponent),
    query: new URLSearchParams(location.search),
  };
}

const listeners = new Set<() => void>();
addEventListener('popstate', () => listeners.forEach((l) => l()));

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const l = () => setLoc(current());
    listeners.add(l);
    return () => listeners.delete(l);
  }, []);
  return loc;
}

export function href(segments: string[], query: Record<string, string | number | undefined> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return BASE + segments.map(encodeURIComponent).join('/') + (s ? `?${s}` : '');
}

/** Goes to a console URL; `replace` for corrections (a clamped page) that Back should skip. */
export function navigate(url: string, replace = false): void {
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((l) => l());
  if (!replace) scrollTo(0, 0);
}

/** Changes some query keys of the current page (a filter resets the page unless it is the page). */
export function setQuery(changes: Record<string, string | number | undefined>, replace = false): void {
  const q = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === '') q.delete(k);
    else q.set(k, String(v));
  }
  if (!('page' in changes)) q.delete('page');
  const s = q.toString();
  navigate(location.pathname + (s ? `?${s}` : ''), replace);
}

/** A page number from the URL: 1 for anything that is not a positive integer. */
export function pageOf(q: URLSearchParams): number {
  const n = Number(q.get('page'));
  return Number.isInteger(n) && n >= 1 ? n : 1;
}

/** When the page is past the last one (rows went away, or a hand-edited URL), go to the last one. */
export function clampPage(page: number, total: number, perPage: number): boolean {
  const last = Math.max(1, Math.ceil(total / perPage));
  if (page > last) {
    setQuery({ page: last === 1 ? undefined : last }, true);
    return true;
  }
  return false;
}
