import { useState } from 'preact/hooks';
import { call, type Session } from '../api.ts';
import { clampPage, href, pageOf, setQuery } from '../route.ts';
import { Alert, Badge, errorText, Link, Pager, useData, when } from '../ui.tsx';
import { RegistrySelect } from './registry-select.tsx';
import type { ActionAnswer } from '../action-types.ts';

export function UpstreamPage(p: { me: Session; q: URLSearchParams }) {
  const registry = p.q.get('registry') ?? '';
  const state = p.q.get('state') ?? '';
  const page = pageOf(p.q);
  const { data, error, reload } = useData(
    () => call('upstream_list', { query: { registry, state, page } }),
    `${registry}|${state}|${page}`,
  );
  const [results, setResults] = useState<Record<string, string>>({});
  if (data && clampPage(page, data.total, data.per_page)) return null;
  const key = (r: ActionAnswer<'upstream_list'>['rows'][number]) => `${r.registry}\0${r.package_name}\0${r.version}`;
  return (
    <>
      <h1>Upstream</h1>
      <p>Versions hub holds that their upstream no longer lists. A Recheck probes the upstream now.</p>
      <form class="filters" aria-label="Filter upstream rows" onSubmit={(e) => e.preventDefault()}>
        <RegistrySelect value={registry} onChange={(v) => setQuery({ registry: v })} allowAll />
        <label for="state">State</label>
        <select id="state" value={state} onChange={(e) => setQuery({ state: e.currentTarget.value })}>
          <option value="">Any</option>
          <option value="missing">missing</option>
          <option value="disappeared">disappeared</option>
        </select>
      </form>
      <Alert error={error} />
      {data && (
        <>
          <div class="scroll">
            <table>
              <caption class="sr-only">Upstream audit rows</caption>
              <thead>
                <tr>
                  <th scope="col">Registry</th>
                  <th scope="col">Package</th>
                  <th scope="col">Version</th>
                  <th scope="col">State</th>
                  <th scope="col">Misses</th>
                  <th scope="col">First missed</th>
                  <th scope="col">Policy</th>
                  <th scope="col">Recheck</th>
                </tr>
              </thead>
              <tbody>
                {data.rows.length === 0 && (
                  <tr>
                    <td colSpan={8}>No rows.</td>
                  </tr>
                )}
                {data.rows.map((r) => (
                  <tr key={key(r)} data-package={r.package_name} data-version={r.version}>
                    <td>{r.registry}</td>
                    <td>
                      <Link to={href(['packages', r.registry, r.package_name])}>{r.package_name}</Link>
                    </td>
                    <td>{r.version}</td>
                    <td>
                      <Badge kind={r.state === 'disappeared' ? 'bad' : 'warn'}>{r.state}</Badge>
                    </td>
                    <td>{r.misses}</td>
                    <td>{when(r.first_missed_at)}</td>
                    <td>{r.policy}</td>
                    <td>
                      {p.me.can.write && (
                        <button
                          type="button"
                          aria-label={`Recheck ${r.package_name} ${r.version}`}
                          onClick={() => {
                            setResults((m) => ({ ...m, [key(r)]: 'Checking…' }));
                            call('upstream_recheck', {
                              body: { registry: r.registry, package_name: r.package_name, version: r.version },
                            }).then(
                              (res: { cleared: string[] }) =>
                                setResults((m) => ({
                                  ...m,
                                  [key(r)]: res.cleared.includes(r.version)
                                    ? 'Cleared: the upstream lists it again'
                                    : 'Still missing upstream',
                                })),
                              (e) => setResults((m) => ({ ...m, [key(r)]: errorText(e) })),
                            );
                          }}
                        >
                          Recheck
                        </button>
                      )}
                      <output class="inline-result">{results[key(r)] ?? ''}</output>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} total={data.total} perPage={data.per_page} label="Upstream rows" />
          <button type="button" onClick={reload}>
            Refresh
          </button>
        </>
      )}
    </>
  );
}
