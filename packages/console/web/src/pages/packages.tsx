import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { clampPage, href, pageOf, setQuery } from '../route.ts';
import { Alert, Badge, bytes, Link, Pager, useData, when } from '../ui.tsx';
import { RegistrySelect } from './registry-select.tsx';

export function PackagesPage(p: { q: URLSearchParams }) {
  const registry = p.q.get('registry') ?? '';
  const text = p.q.get('q') ?? '';
  const page = pageOf(p.q);
  const [draft, setDraft] = useState(text);
  const { data, error } = useData(
    () => (registry ? call('package_list', { query: { registry, q: text, page } }) : Promise.resolve(null)),
    `${registry}|${text}|${page}`,
  );
  if (data && clampPage(page, data.total, data.per_page)) return null;
  return (
    <>
      <h1>Packages</h1>
      <form
        class="filters"
        role="search"
        aria-label="Search held packages"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ q: draft.trim() });
        }}
      >
        <RegistrySelect value={registry} onChange={(v) => setQuery({ registry: v })} />
        <label for="package-q">Name contains</label>
        <input id="package-q" type="search" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
        <button type="submit">Search</button>
      </form>
      <Alert error={error} />
      {!registry && <p>Choose a registry to see the packages hub holds in it.</p>}
      {data && (
        <>
          <div class="scroll">
            <table>
              <caption class="sr-only">Held packages</caption>
              <thead>
                <tr>
                  <th scope="col">Package</th>
                  <th scope="col">Versions held</th>
                  <th scope="col">Size</th>
                  <th scope="col">Pulls</th>
                  <th scope="col">Last pull</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {data.items.length === 0 && (
                  <tr>
                    <td colSpan={6}>No packages match.</td>
                  </tr>
                )}
                {data.items.map((it) => (
                  <tr key={it.name}>
                    <th scope="row">
                      <Link to={href(['packages', it.registry, it.name])}>{it.name}</Link>
                    </th>
                    <td>{it.versions_held}</td>
                    <td>{bytes(it.bytes_held)}</td>
                    <td>{it.pulls}</td>
                    <td>{when(it.last_pull_at)}</td>
                    <td>
                      {it.blocked_versions > 0 && <Badge kind="bad">{it.blocked_versions} blocked</Badge>}
                      {it.flagged_versions > 0 && <Badge kind="warn">{it.flagged_versions} flagged</Badge>}
                      {it.upstream_state && it.upstream_state !== 'ok' && (
                        <Badge kind="warn">{it.upstream_state}</Badge>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} total={data.total} perPage={data.per_page} label="Packages" />
        </>
      )}
    </>
  );
}
