import { call } from '../api.ts';
import { Alert, Badge, bytes, useData, when } from '../ui.tsx';
import type { ActionAnswer } from '../action-types.ts';

/**
 * The plugin sections this page reads. The OpenAPI document leaves each plugin's section of the health
 * answer open (a plugin adds its own), so the members read here are declared here; the rest is generated.
 */
interface PluginSections {
  replicas?: { live_replicas: number | null; rate_store: string };
  audit?: { policy: string; scheduled: boolean; interval_secs: number };
  flags?: { hard_blocks_held: { flags: number; bytes: number; max_bytes: number; problem: string | null } };
}
interface RegistrySections {
  audit?: {
    policy: string;
    overridden: boolean;
    audited: boolean;
    reason?: string;
    missing: number;
    disappeared: number;
    content_changed?: number;
    last_sweep: { at: string | null; outcome: string } | null;
  };
  upstream_mirrors?: { mirrors: Array<{ mirror: string; state: string; last_error: string | null }> };
}
/** A generated type without its index signature (the open plugin sections), so that Omit keeps its members. */
type Known<T> = { [K in keyof T as string extends K ? never : K]: T[K] };
type Answer = Known<ActionAnswer<'health'>>;
type Health = Omit<Answer, 'registries'> &
  PluginSections & { registries: Array<Known<Answer['registries'][number]> & RegistrySections> };

export function HealthPage() {
  const { data, error } = useData(() => call('health') as Promise<Health>, 'health');
  const held = data?.registries.reduce((n, r) => n + r.cached.bytes, 0) ?? 0;
  return (
    <>
      <h1>Health</h1>
      <Alert error={error} />
      {data && (
        <>
          <section class="card" aria-labelledby="hub-facts">
            <h2 id="hub-facts">hub {data.version}</h2>
            <dl class="facts">
              <dt>Status</dt>
              <dd>
                <Badge kind={data.status === 'ok' ? 'ok' : 'bad'}>{data.status}</Badge>
              </dd>
              <dt>Database</dt>
              <dd>{data.database}</dd>
              <dt>Storage</dt>
              <dd>{data.storage ?? '—'}</dd>
              <dt>Cache</dt>
              <dd data-count="held-bytes">
                {bytes(data.cache?.held_bytes ?? held)}
                {data.cache &&
                  (data.cache.max_bytes > 0
                    ? ` of ${bytes(data.cache.max_bytes)} (max_bytes)`
                    : ' (no max_bytes limit)')}
              </dd>
              {data.replicas && (
                <>
                  <dt>Replicas</dt>
                  <dd>
                    {data.replicas.live_replicas ?? 'unknown'} live, rate limits in {data.replicas.rate_store}
                  </dd>
                </>
              )}
              {data.audit && (
                <>
                  <dt>Audit policy</dt>
                  <dd>
                    {data.audit.policy}{' '}
                    {data.audit.scheduled
                      ? `(sweeps every ${Math.round(data.audit.interval_secs / 3600)} h)`
                      : '(scheduled sweeps off)'}
                  </dd>
                </>
              )}
              {data.flags && (
                <>
                  <dt title="[limits] flag_hard_block_bytes caps the hard_block flags held in memory">
                    Hard blocks held
                  </dt>
                  <dd data-count="hard-blocks">
                    {data.flags.hard_blocks_held.flags} flags, {bytes(data.flags.hard_blocks_held.bytes)} of{' '}
                    {bytes(data.flags.hard_blocks_held.max_bytes)}{' '}
                    {data.flags.hard_blocks_held.problem && (
                      <Badge kind="bad" title={data.flags.hard_blocks_held.problem}>
                        incomplete
                      </Badge>
                    )}
                  </dd>
                </>
              )}
            </dl>
          </section>
          <section aria-labelledby="registries">
            <h2 id="registries">Registries</h2>
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Registry</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Mode</th>
                    <th scope="col">Held</th>
                    <th scope="col">Missing</th>
                    <th scope="col">Disappeared</th>
                    <th scope="col">Content changed</th>
                    <th scope="col">Policy</th>
                    <th scope="col">Last sweep</th>
                    <th scope="col">Upstream or members</th>
                  </tr>
                </thead>
                <tbody>
                  {data.registries.map((r) => (
                    <tr key={r.name} data-registry={r.name}>
                      <th scope="row">{r.name}</th>
                      <td>{r.type}</td>
                      <td>{r.mode}</td>
                      <td>
                        {r.cached.artifacts} files, {bytes(r.cached.bytes)}
                      </td>
                      <td data-count="missing">{r.audit?.missing ?? '—'}</td>
                      <td data-count="disappeared">{r.audit?.disappeared ?? '—'}</td>
                      <td data-count="content-changed">{r.audit?.content_changed ?? '—'}</td>
                      <td>
                        {r.audit ? r.audit.policy : '—'}{' '}
                        {r.audit?.overridden && <Badge kind="warn">differs from hub</Badge>}
                        {r.audit && !r.audit.audited && (
                          <Badge kind="muted" title={r.audit.reason}>
                            not audited
                          </Badge>
                        )}
                      </td>
                      <td>
                        {r.audit?.last_sweep
                          ? `${r.audit.last_sweep.outcome}, ${when(r.audit.last_sweep.at)}`
                          : 'never'}
                      </td>
                      <td>
                        {r.members
                          ? r.members.map((m, i) => (
                              // A group (decision 0051): its members in the order they are asked, each with its state.
                              <div key={m.name} data-member={m.name}>
                                {i + 1}. {m.name} ({m.mode}){' '}
                                <Badge kind={m.state === 'ok' ? 'ok' : m.state === 'down' ? 'bad' : 'warn'}>
                                  {m.state === 'ok' ? 'reachable' : m.state === 'down' ? 'failing' : 'degraded'}
                                </Badge>
                              </div>
                            ))
                          : r.upstream_mirrors?.mirrors.length
                            ? r.upstream_mirrors.mirrors.map((m) => (
                                <div key={m.mirror}>
                                  {m.mirror}{' '}
                                  <Badge
                                    kind={m.state === 'closed' ? 'ok' : m.state === 'open' ? 'bad' : 'warn'}
                                    title={m.last_error ?? undefined}
                                  >
                                    {m.state === 'closed' ? 'reachable' : m.state === 'open' ? 'failing' : 'probing'}
                                  </Badge>
                                </div>
                              ))
                            : r.mode === 'local'
                              ? 'local only'
                              : '—'}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        </>
      )}
    </>
  );
}
