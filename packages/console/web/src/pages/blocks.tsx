import { useState } from 'preact/hooks';
import { call, type Session } from '../api.ts';
import { clampPage, href, pageOf, setQuery } from '../route.ts';
import { Alert, Confirm, errorText, Link, Pager, useData, when } from '../ui.tsx';
import { RegistrySelect } from './registry-select.tsx';

const PER_PAGE = 50;
/** Blocks the audit's block arm made: the filter the security team starts from. */
const AUDIT_ACTOR = 'system:upstream-audit';

export function BlocksPage(p: { me: Session; q: URLSearchParams }) {
  const by = p.q.get('blocked_by') ?? '';
  const registry = p.q.get('registry') ?? '';
  const page = pageOf(p.q);
  const { data, error, reload } = useData(
    () => call('block_list', { query: { blocked_by: by, registry } }),
    `${by}|${registry}`,
  );
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<{ ok?: string; error?: string }>({});
  const [byText, setByText] = useState(by);
  if (data && clampPage(page, data.blocks.length, PER_PAGE)) return null;
  const rows = data?.blocks.slice((page - 1) * PER_PAGE, page * PER_PAGE) ?? [];
  const toggle = (id: number) =>
    setChosen((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  async function unblockChosen() {
    setConfirming(false);
    let done = 0;
    const failures: string[] = [];
    for (const id of chosen) {
      try {
        await call('block_remove', { params: { id: String(id) } });
        done++;
      } catch (e) {
        failures.push(`${id}: ${errorText(e)}`);
      }
    }
    setChosen(new Set());
    await reload();
    setResult(
      failures.length ? { error: `Unblocked ${done}; failed: ${failures.join('; ')}` } : { ok: `Unblocked ${done}.` },
    );
  }
  return (
    <>
      <h1>Blocks</h1>
      <form
        class="filters"
        aria-label="Filter blocks"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ blocked_by: byText.trim() });
        }}
      >
        <RegistrySelect value={registry} onChange={(v) => setQuery({ registry: v })} allowAll />
        <label for="blocked-by">Blocked by</label>
        <input
          id="blocked-by"
          value={byText}
          onInput={(e) => setByText(e.currentTarget.value)}
          placeholder={AUDIT_ACTOR}
        />
        <button type="submit">Filter</button>
        <button
          type="button"
          aria-pressed={by === AUDIT_ACTOR}
          onClick={() => {
            setByText(AUDIT_ACTOR);
            setQuery({ blocked_by: AUDIT_ACTOR });
          }}
        >
          Upstream audit only
        </button>
      </form>
      <Alert error={error ?? result.error} ok={result.ok} />
      {p.me.can.write && chosen.size > 0 && !confirming && (
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          Unblock {chosen.size} selected
        </button>
      )}
      {confirming && (
        <Confirm
          title={`Unblock ${chosen.size} ${chosen.size === 1 ? 'block' : 'blocks'}?`}
          confirm={`Unblock ${chosen.size}`}
          danger
          onConfirm={unblockChosen}
          onCancel={() => setConfirming(false)}
        >
          <p>
            {chosen.size} {chosen.size === 1 ? 'block is' : 'blocks are'} removed: those versions are listed and
            downloadable again, unless another block or a flag still refuses them.
          </p>
        </Confirm>
      )}
      {data && (
        <>
          <div class="scroll">
            <table>
              <caption class="sr-only">Blocks</caption>
              <thead>
                <tr>
                  {p.me.can.write && <th scope="col">Select</th>}
                  <th scope="col">Registry</th>
                  <th scope="col">Package</th>
                  <th scope="col">Version</th>
                  <th scope="col">Reason</th>
                  <th scope="col">By</th>
                  <th scope="col">Since</th>
                </tr>
              </thead>
              <tbody>
                {rows.length === 0 && (
                  <tr>
                    <td colSpan={7}>No blocks.</td>
                  </tr>
                )}
                {rows.map((b) => (
                  <tr key={b.id}>
                    {p.me.can.write && (
                      <td>
                        <input
                          type="checkbox"
                          aria-label={`Select block of ${b.package_name} ${b.version ?? '(all versions)'}`}
                          checked={chosen.has(b.id)}
                          onChange={() => toggle(b.id)}
                        />
                      </td>
                    )}
                    <td>{b.registry}</td>
                    <td>
                      <Link to={href(['packages', b.registry, b.package_name])}>{b.package_name}</Link>
                    </td>
                    <td>{b.version ?? 'all versions'}</td>
                    <td>{b.reason ?? ''}</td>
                    <td>{b.blocked_by}</td>
                    <td>{when(b.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} total={data.blocks.length} perPage={PER_PAGE} label="Blocks" />
        </>
      )}
    </>
  );
}
