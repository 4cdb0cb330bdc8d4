import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';
import { href, navigate, setQuery } from './route.ts';

/**
 * Loads data for a key; reload() after an action, which settles once the page shows the new data (so an
 * action's result is announced with the state it describes). Errors become text, never HTML.
 */
export function useData<T>(
  load: () => Promise<T>,
  key: string,
): { data: T | null; error: string | null; reload: () => Promise<void> } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const waiting = useRef<Array<() => void>>([]);
  // The newest `load` (a closure made on each render); `key` alone says when to load again.
  const latestLoadRef = useRef(load);
  useEffect(() => {
    latestLoadRef.current = load;
  });
  useEffect(() => {
    let live = true;
    setError(null);
    const settle = () => {
      if (!live) return;
      for (const resolve of waiting.current.splice(0)) resolve();
    };
    latestLoadRef
      .current()
      .then(
        (d) => live && setData(d),
        (e: unknown) => live && setError(errorText(e)),
      )
      .finally(settle);
    return () => {
      live = false;
    };
  }, [key, tick]);
  const reload = useCallback(
    () =>
      new Promise<void>((resolve) => {
        waiting.current.push(resolve);
        setTick((n) => n + 1);
      }),
    [],
  );
  return { data, error, reload };
}

export const errorText = (e: unknown) =>
  e instanceof ApiError ? `${e.message} (${e.code})` : e instanceof Error ? e.message : String(e);

/** A console link: an ordinary <a> (open in a new tab works), routed in place on a plain click. */
export function Link(p: { to: string; children: ComponentChildren; class?: string; current?: boolean }) {
  return (
    <a
      href={p.to}
      class={p.class}
      aria-current={p.current ? 'page' : undefined}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(p.to);
      }}
    >
      {p.children}
    </a>
  );
}

export function Alert(p: { error?: string | null; ok?: string | null }) {
  if (p.error)
    return (
      <p class="alert error" role="alert">
        {p.error}
      </p>
    );
  if (p.ok)
    return (
      <p class="alert ok" role="status">
        {p.ok}
      </p>
    );
  return null;
}

export function Badge(p: { kind: string; children: ComponentChildren; title?: string }) {
  return (
    <span class={`badge badge-${p.kind}`} title={p.title}>
      {p.children}
    </span>
  );
}

export function Pager(p: { page: number; total: number; perPage: number; label: string }) {
  const last = Math.max(1, Math.ceil(p.total / p.perPage));
  return (
    <nav class="pager" aria-label={`${p.label} pages`}>
      <button
        type="button"
        disabled={p.page <= 1}
        onClick={() => setQuery({ page: p.page - 1 === 1 ? undefined : p.page - 1 })}
      >
        Previous
      </button>
      <span>
        Page {p.page} of {last} ({p.total} in all)
      </span>
      <button type="button" disabled={p.page >= last} onClick={() => setQuery({ page: p.page + 1 })}>
        Next
      </button>
    </nav>
  );
}

/** A confirmation that states what will happen; the action runs only on its button. */
export function Confirm(p: {
  title: string;
  children: ComponentChildren;
  confirm: string;
  onConfirm: () => void;
  onCancel: () => void;
  danger?: boolean;
}) {
  return (
    <div class="confirm" role="alertdialog" aria-modal="false" aria-labelledby="confirm-title">
      <h3 id="confirm-title">{p.title}</h3>
      {p.children}
      <div class="actions">
        <button type="button" class={p.danger ? 'danger' : 'primary'} onClick={p.onConfirm}>
          {p.confirm}
        </button>
        <button type="button" onClick={p.onCancel} autoFocus>
          Cancel
        </button>
      </div>
    </div>
  );
}

export const bytes = (n: number) =>
  n < 1024
    ? `${n} B`
    : n < 1024 ** 2
      ? `${(n / 1024).toFixed(1)} KiB`
      : n < 1024 ** 3
        ? `${(n / 1024 ** 2).toFixed(1)} MiB`
        : `${(n / 1024 ** 3).toFixed(2)} GiB`;
export const when = (iso: string | null | undefined) =>
  iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC') : '—';
export { href };
