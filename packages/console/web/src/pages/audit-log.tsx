import { useState } from 'preact/hooks';
import { actionUrl, call } from '../api.ts';
import { setQuery } from '../route.ts';
import { Alert, Badge, useData, when } from '../ui.tsx';

const FIELDS = ['action', 'user_id', 'registry', 'package', 'from', 'to'] as const;

export function AuditLogPage(p: { q: URLSearchParams }) {
  const filters = Object.fromEntries(FIELDS.map((k) => [k, p.q.get(k) ?? ''])) as Record<
    (typeof FIELDS)[number],
    string
  >;
  const denied = p.q.get('denied') === 'true';
  const cursor = p.q.get('cursor') ?? '';
  const [draft, setDraft] = useState(filters);
  const query = { ...filters, denied: denied ? 'true' : undefined };
  const { data, error } = useData(
    () => call('audit_log_read', { query: { ...query, cursor, limit: 50 } }),
    p.q.toString(),
  );
  return (
    <>
      <h1>Audit log</h1>
      <form
        class="filters"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ ...draft, cursor: undefined });
        }}
      >
        {FIELDS.map((k) => (
          <span key={k} class="field">
            <label for={`f-${k}`}>
              {k === 'user_id'
                ? 'User'
                : k === 'from'
                  ? 'From (RFC 3339)'
                  : k === 'to'
                    ? 'To (RFC 3339)'
                    : k[0]!.toUpperCase() + k.slice(1)}
            </label>
            <input id={`f-${k}`} value={draft[k]} onInput={(e) => setDraft({ ...draft, [k]: e.currentTarget.value })} />
          </span>
        ))}
        <label class="check">
          <input
            type="checkbox"
            checked={denied}
            onChange={(e) => setQuery({ denied: e.currentTarget.checked ? 'true' : undefined, cursor: undefined })}
          />{' '}
          Denied only
        </label>
        <button type="submit">Filter</button>
        <a href={actionUrl('audit_log_export', {}, { ...query, format: 'csv' })} download="audit-log.csv">
          Export CSV
        </a>
      </form>
      <Alert error={error} />
      {data && (
        <>
          <div class="scroll">
            <table>
              <caption class="sr-only">Audit log entries, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">User</th>
                  <th scope="col">Address</th>
                  <th scope="col">Action</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Target</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                {data.entries.length === 0 && (
                  <tr>
                    <td colSpan={7}>No entries.</td>
                  </tr>
                )}
                {data.entries.map((e) => (
                  <tr key={e.id}>
                    <td>{when(e.time)}</td>
                    <td>{e.user_id ?? 'anonymous'}</td>
                    <td>{e.ip_address ?? ''}</td>
                    <td>{e.action}</td>
                    <td>
                      <Badge kind={e.outcome === 'allowed' ? 'ok' : 'bad'}>
                        {e.outcome} {e.status}
                      </Badge>
                    </td>
                    <td>{[e.registry, e.package, e.version].filter(Boolean).join(' ')}</td>
                    <td>{[e.code, e.detail].filter(Boolean).join(': ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav class="pager" aria-label="Audit log pages">
            <button type="button" disabled={!cursor} onClick={() => setQuery({ cursor: undefined })}>
              Newest
            </button>
            <button
              type="button"
              disabled={!data.next_cursor}
              onClick={() => setQuery({ cursor: data.next_cursor ?? undefined, page: undefined })}
            >
              Older
            </button>
          </nav>
        </>
      )}
    </>
  );
}
