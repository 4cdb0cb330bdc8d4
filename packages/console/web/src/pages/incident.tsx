import { useState } from 'preact/hooks';
import { actionUrl, call, type Session } from '../api.ts';
import { href, setQuery } from '../route.ts';
import { Alert, Badge, Confirm, errorText, Link, useData, when } from '../ui.tsx';
import type { ActionAnswer } from '../action-types.ts';

type Flag = ActionAnswer<'flag_list'>['flags'][number];

/** From a flag to who fetched it, the audit log, a CSV and a whole-name block: the security team's one page. */
export function IncidentPage(p: { me: Session; q: URLSearchParams }) {
  const dead = p.q.get('include_dead') === 'true';
  const source = p.q.get('source') ?? '';
  const external = p.q.get('flag') ?? '';
  const flags = useData(
    () => call('flag_list', { query: { include_dead: dead ? 'true' : undefined } }),
    `flags|${dead}`,
  );
  const flag = flags.data?.flags.find((f) => f.source === source && f.external_id === external) ?? null;
  return (
    <>
      <h1>Incidents</h1>
      <section aria-labelledby="flags-h">
        <h2 id="flags-h">Flags</h2>
        <label class="check">
          <input
            type="checkbox"
            checked={dead}
            onChange={(e) => setQuery({ include_dead: e.currentTarget.checked ? 'true' : undefined })}
          />{' '}
          Include lifted and expired flags
        </label>
        <Alert error={flags.error} />
        {flags.data && (
          <div class="scroll">
            <table>
              <caption class="sr-only">Flags</caption>
              <thead>
                <tr>
                  <th scope="col">Flag</th>
                  <th scope="col">Package</th>
                  <th scope="col">Versions</th>
                  <th scope="col">Effect</th>
                  <th scope="col">Summary</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {flags.data.flags.length === 0 && (
                  <tr>
                    <td colSpan={6}>No flags.</td>
                  </tr>
                )}
                {flags.data.flags.map((f) => (
                  <tr key={`${f.source}/${f.external_id}`} aria-selected={f === flag}>
                    <th scope="row">
                      <Link
                        to={href(['incident'], {
                          include_dead: dead ? 'true' : undefined,
                          source: f.source,
                          flag: f.external_id,
                        })}
                      >
                        {f.source}/{f.external_id}
                      </Link>
                    </th>
                    <td>
                      {f.registry}: {f.package_name}
                    </td>
                    <td>{f.version ?? f.version_range ?? 'all'}</td>
                    <td>
                      <Badge kind={f.effect === 'block' ? 'bad' : 'warn'}>{f.effect}</Badge>
                    </td>
                    <td class="summary-text">{f.summary}</td>
                    <td>{f.state}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {flag && <Exposure me={p.me} flag={flag} />}
      {flag && <Waivers flag={flag} />}
    </>
  );
}

function Exposure(p: { me: Session; flag: Flag }) {
  const f = p.flag;
  const query = { source: f.source, registry: f.registry, package: f.package_name };
  const { data, error } = useData(() => call('exposure', { query }), `${f.source}|${f.external_id}`);
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<{ ok?: string; error?: string }>({});
  const rows = data?.rows.filter((r) => r.external_id === f.external_id) ?? [];
  return (
    <section aria-labelledby="exposure-h">
      <h2 id="exposure-h">
        Exposure to {f.source}/{f.external_id}
      </h2>
      <p class="summary-text">{f.summary}</p>
      <Alert error={error ?? result.error} ok={result.ok} />
      {data && (
        <div class="banner" role="note" aria-label="Coverage">
          <strong>Coverage.</strong> {data.coverage.analysis}. Registries with SBOM analysis:{' '}
          {data.coverage.registries_with_sbom}. Sources:{' '}
          {data.coverage.sources
            .map((s) => `${s.name} (${s.pushed ? `${s.flags} flags, last ${when(s.last_push_at)}` : 'never pushed'})`)
            .join('; ') || 'none configured'}
          .
        </div>
      )}
      {data && (
        <div class="scroll">
          <table>
            <caption class="sr-only">Who fetched the flagged versions</caption>
            <thead>
              <tr>
                <th scope="col">Consumer</th>
                <th scope="col">Addresses</th>
                <th scope="col">Version</th>
                <th scope="col">Exposure</th>
                <th scope="col">Before flag</th>
                <th scope="col">After flag</th>
                <th scope="col">Last fetch</th>
                <th scope="col">Waived</th>
              </tr>
            </thead>
            <tbody>
              {rows.length === 0 && (
                <tr>
                  <td colSpan={8}>Nobody fetched a flagged version (within the audit log's retention).</td>
                </tr>
              )}
              {rows.map((r, i) => (
                <tr key={i} class="exposure-row">
                  <td>{String(r.consumer ?? '')}</td>
                  <td>{String(r.ip_addresses ?? '')}</td>
                  <td>{String(r.version ?? '')}</td>
                  <td>
                    {String(r.exposure ?? '')}
                    {r.via ? ` via ${String(r.via)}` : ''}
                  </td>
                  <td>{String(r.fetches_before_flag ?? 0)}</td>
                  <td>{String(r.fetches_after_flag ?? 0)}</td>
                  <td>{when(r.last_fetch_at as string | null)}</td>
                  <td>{r.waived ? String(r.waived) : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="actions">
        <Link to={href(['audit-log'], { registry: f.registry, package: f.package_name, action: 'download' })}>
          Audit log of this package
        </Link>
        <a href={actionUrl('exposure_export', {}, { ...query, format: 'csv' })} download="exposure.csv">
          Download CSV
        </a>
        {p.me.can.write && (
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            Block every version of {f.package_name}
          </button>
        )}
      </p>
      {confirming && (
        <Confirm
          title={`Block all of ${f.package_name}?`}
          confirm="Block the whole name"
          danger
          onConfirm={() => {
            setConfirming(false);
            call('block_add', {
              body: { registry: f.registry, package_name: f.package_name, reason: `${f.source}/${f.external_id}` },
            }).then(
              () => setResult({ ok: `Blocked every version of ${f.package_name}.` }),
              (e) => setResult({ error: errorText(e) }),
            );
          }}
          onCancel={() => setConfirming(false)}
        >
          <p>
            Every version of {f.package_name} in {f.registry} is hidden from listings and every download is refused with
            403.
          </p>
        </Confirm>
      )}
    </section>
  );
}

/** The waivers of this flag (decision 0067): who may still fetch it, why, and until when. Hidden without @hub/waivers. */
function Waivers(p: { flag: Flag }) {
  const f = p.flag;
  const target = `flag:${f.source}:${f.external_id}`;
  const { data, error } = useData(() => call('waiver_list', { query: { target } }), target);
  if (error && /not found|not_found|404/i.test(error)) return null;
  return (
    <section aria-labelledby="waivers-h">
      <h2 id="waivers-h">
        Waivers of {f.source}/{f.external_id}
      </h2>
      <Alert error={error} />
      {data && (
        <div class="scroll">
          <table>
            <caption class="sr-only">Waivers of this flag</caption>
            <thead>
              <tr>
                <th scope="col">Waiver</th>
                <th scope="col">For</th>
                <th scope="col">Version</th>
                <th scope="col">State</th>
                <th scope="col">Expires</th>
                <th scope="col">Requested by</th>
                <th scope="col">Decided by</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {data.waivers.length === 0 && (
                <tr>
                  <td colSpan={8}>No waivers.</td>
                </tr>
              )}
              {data.waivers.map((w) => (
                <tr key={w.id} class="waiver-row">
                  <th scope="row">{w.id}</th>
                  <td>{w.scope.id ? `${w.scope.type} ${w.scope.id}` : w.scope.type}</td>
                  <td>{w.version ?? 'all'}</td>
                  <td>
                    <Badge kind={w.state === 'active' ? 'warn' : 'ok'}>{w.state}</Badge>
                  </td>
                  <td>{when(w.expires_at)}</td>
                  <td>{w.requested_by}</td>
                  <td>{w.decided_by ?? ''}</td>
                  <td class="summary-text">{w.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
