import { useState } from 'preact/hooks';
import { call, type Session } from '../api.ts';
import { clampPage, pageOf, setQuery } from '../route.ts';
import { Alert, Badge, bytes, Confirm, errorText, Pager, useData, when } from '../ui.tsx';
import type { ActionAnswer } from '../action-types.ts';

type Version = ActionAnswer<'package_show'>['versions'][number];
type Pending = { kind: 'block' | 'purge'; v: Version } | null;

export function PackagePage(p: { me: Session; registry: string; name: string; q: URLSearchParams }) {
  const text = p.q.get('q') ?? '';
  const pre = p.q.get('prereleases') === 'show' ? 'show' : 'hide';
  const page = pageOf(p.q);
  const [draft, setDraft] = useState(text);
  const { data, error, reload } = useData(
    () =>
      call('package_show', {
        params: { registry: p.registry, package: p.name },
        query: { q: text, prereleases: pre, page },
      }),
    `${p.registry}|${p.name}|${text}|${pre}|${page}`,
  );
  const [pending, setPending] = useState<Pending>(null);
  const [reason, setReason] = useState('');
  const [result, setResult] = useState<{ ok?: string; error?: string }>({});
  if (data && clampPage(page, data.matched, data.per_page)) return null;
  const run = (what: string, f: () => Promise<unknown>) => {
    setPending(null);
    setResult({});
    f().then(
      () => reload().then(() => setResult({ ok: what })),
      (e) => setResult({ error: errorText(e) }),
    );
  };
  const coord = (v: Version) => ({ registry: p.registry, package_name: p.name, version: v.version });
  const w = p.me.can.write;
  return (
    <>
      <h1>
        {p.name} <span class="muted">in {p.registry}</span>
      </h1>
      <form
        class="filters"
        aria-label="Filter versions"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ q: draft.trim() });
        }}
      >
        <label for="version-q">Version contains</label>
        <input id="version-q" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
        <button type="submit">Filter</button>
        <label class="check">
          <input
            type="checkbox"
            checked={pre === 'show'}
            onChange={(e) => setQuery({ prereleases: e.currentTarget.checked ? 'show' : undefined })}
          />{' '}
          Show pre-releases
        </label>
      </form>
      <Alert error={error ?? result.error} ok={result.ok} />
      {pending?.kind === 'block' && (
        <Confirm
          title={`Block ${p.name}@${pending.v.version}?`}
          confirm="Block"
          danger
          onConfirm={() =>
            run(`Blocked ${pending.v.version}.`, () =>
              call('block_add', { body: { ...coord(pending.v), reason: reason || undefined } }),
            )
          }
          onCancel={() => setPending(null)}
        >
          <p>
            The version is <strong>hidden from listings</strong> (version lists, latest, packuments) and every{' '}
            <strong>download of it is refused with 403</strong>, naming this reason.
          </p>
          <label for="block-reason">Reason</label>
          <input id="block-reason" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        </Confirm>
      )}
      {pending?.kind === 'purge' && (
        <Confirm
          title={`Purge ${p.name}@${pending.v.version}?`}
          confirm="Purge"
          danger
          onConfirm={() =>
            run(`Purged ${pending.v.version}.`, () =>
              call('purge', { params: { ...coord(pending.v), package: p.name } }),
            )
          }
          onCancel={() => setPending(null)}
        >
          <p>hub deletes its cached files of this version; the next download fetches them from the upstream again.</p>
        </Confirm>
      )}
      {data && (
        <>
          <p class="summary" role="status">
            {data.matched} of {data.total} shown
            {data.prereleases_hidden > 0
              ? ` (${data.prereleases_hidden} pre-release${data.prereleases_hidden === 1 ? '' : 's'} hidden)`
              : ''}
          </p>
          <div class="scroll">
            <table>
              <caption class="sr-only">Versions of {p.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">State</th>
                  <th scope="col">Size</th>
                  <th scope="col">Pulls</th>
                  <th scope="col">Last pull</th>
                  <th scope="col">Dependencies</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {data.versions.map((v) => (
                  <tr key={v.version} data-version={v.version}>
                    <th scope="row">{v.version}</th>
                    <td>
                      {v.held && <Badge kind="ok">held</Badge>}
                      {v.prerelease && <Badge kind="muted">pre-release</Badge>}
                      {v.unlisted && <Badge kind="muted">unlisted</Badge>}
                      {v.blocked && (
                        <Badge kind="bad" title={v.blocked.reason ?? undefined}>
                          blocked by {v.blocked.by}
                        </Badge>
                      )}
                      {v.flags.map((f) => (
                        <Badge key={f.id} kind="warn" title={f.summary ?? undefined}>
                          flagged ({f.source}, {f.effect})
                        </Badge>
                      ))}
                      {v.disappeared && <Badge kind="bad">disappeared upstream</Badge>}
                      {v.cooldown_until && <Badge kind="warn">cool-down until {when(v.cooldown_until)}</Badge>}
                      {v.provenance?.status === 'verified' && (
                        <Badge
                          kind="ok"
                          title={`${v.provenance.source_repository ?? ''} ${v.provenance.workflow ?? ''}`.trim()}
                        >
                          provenance: {v.provenance.source_repository ?? 'verified'}
                        </Badge>
                      )}
                      {v.provenance && v.provenance.status !== 'verified' && (
                        <Badge
                          kind={v.provenance.status === 'failed' ? 'bad' : 'muted'}
                          title={v.provenance.reason ?? undefined}
                        >
                          provenance {v.provenance.status}
                        </Badge>
                      )}
                      {v.provenance?.source_changed && <Badge kind="warn">source changed</Badge>}
                      {v.blocked?.reason && <div class="reason">{v.blocked.reason}</div>}
                      {v.flags.map((f) => (
                        <div key={f.id} class="reason">
                          {f.summary}
                        </div>
                      ))}
                    </td>
                    <td>{bytes(v.bytes)}</td>
                    <td>{v.pulls}</td>
                    <td>{when(v.last_pull_at)}</td>
                    <td>
                      {v.dependencies.length ? v.dependencies.map((d) => `${d.name} ${d.range}`).join(', ') : '—'}
                    </td>
                    <td class="row-actions">
                      {w && !v.blocked && (
                        <button
                          type="button"
                          aria-label={`Block ${v.version}`}
                          onClick={() => {
                            setReason(v.disappeared ? 'disappeared from the upstream' : '');
                            setPending({ kind: 'block', v });
                          }}
                        >
                          Block
                        </button>
                      )}
                      {w && v.blocked && (
                        <button
                          type="button"
                          aria-label={`Unblock ${v.version}`}
                          onClick={() =>
                            run(`Unblocked ${v.version}.`, () =>
                              call('block_remove', { params: { id: String(v.blocked!.id) } }),
                            )
                          }
                        >
                          Unblock
                        </button>
                      )}
                      {w && !v.unlisted && (
                        <button
                          type="button"
                          aria-label={`Unlist ${v.version}`}
                          onClick={() => run(`Unlisted ${v.version}.`, () => call('unlist', { body: coord(v) }))}
                        >
                          Unlist
                        </button>
                      )}
                      {w && v.unlisted && (
                        <button
                          type="button"
                          aria-label={`Relist ${v.version}`}
                          onClick={() => run(`Relisted ${v.version}.`, () => call('relist', { body: coord(v) }))}
                        >
                          Relist
                        </button>
                      )}
                      {w && (
                        <button
                          type="button"
                          aria-label={`Purge ${v.version}`}
                          onClick={() => setPending({ kind: 'purge', v })}
                        >
                          Purge
                        </button>
                      )}
                      {w && (
                        <button
                          type="button"
                          aria-label={`Recheck ${v.version}`}
                          onClick={() =>
                            run(`Rechecked ${v.version}.`, () => call('upstream_recheck', { body: coord(v) }))
                          }
                        >
                          Recheck
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} total={data.matched} perPage={data.per_page} label="Versions" />
        </>
      )}
    </>
  );
}
