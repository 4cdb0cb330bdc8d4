/** health: the health card (GET /api/v1/admin/health). Exit 1 unless its status is "ok". */
import { adminCommand, connectionHelp } from '../command.js';
import { cell, printJson, rowsOf, table, type Column, type Row } from '../output.js';

/** 1536 -> "1.5 KiB". */
function bytes(n: unknown): string {
  const v = Number(n);
  if (!Number.isFinite(v) || v < 0) return cell(n);
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let x = v;
  while (x >= 1024 && i < units.length - 1) {
    x /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${x.toFixed(1)} ${units[i]}`;
}

/** 21600 -> "6h". */
function every(secs: unknown): string {
  const s = Number(secs);
  if (!Number.isSafeInteger(s) || s <= 0) return cell(secs);
  for (const [unit, n] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const)
    if (s % n === 0) return `${s / n}${unit}`;
  return `${s}s`;
}

const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

export const health = adminCommand({
  name: 'health',
  routes: ['GET /api/v1/admin/health'],
  help: `Usage: hub health

Shows the hub's health card: its status, version and database, then one line per registry with
its type, mode and what it has cached (artifacts and bytes). With the upstream audit loaded
(@hub/audit), also the audit's policy (marked "(overridden)" when the registry's own
on_confirmed differs from the hub's), its missing and disappeared versions, its last sweep, and
whether it is audited at all (and if not, why).

Needs permission system:read.

Examples:
  hub health
  hub health --json | jq '.registries[] | select(.audit.disappeared > 0) | .name'

${connectionHelp(
  'system:read',
  `Exit status: 0 the hub reports status ok; 1 any other status (e.g. its database is unreachable),
or the request was refused, failed or the hub is unreachable; 2 bad usage.`,
)}`,
  async run({ io, json, api }) {
    const answer = await api.call<Row>('GET', '/api/v1/admin/health');
    const ok = answer.status === 'ok';
    if (json) return (printJson(io, answer), ok ? 0 : 1);
    io.out(`hub ${cell(answer.version)}: status ${cell(answer.status)}, database ${cell(answer.database)}\n`);
    const summary = answer.audit;
    if (isRow(summary))
      io.out(
        `upstream audit: policy ${cell(summary.policy)}, ${summary.scheduled ? `sweeps every ${every(summary.interval_secs)}` : 'no scheduled sweeps (run hub upstream sweep)'}\n`,
      );
    const registries = rowsOf(answer, 'registries');
    if (!registries.length) return (io.err('no registries\n'), ok ? 0 : 1);
    const audited = registries.some((r) => isRow(r.audit));
    const columns: Column[] = [
      { header: 'NAME', keys: ['name'] },
      { header: 'TYPE', keys: ['type'] },
      { header: 'MODE', keys: ['mode'] },
      { header: 'ARTIFACTS', keys: ['artifacts'] },
      { header: 'BYTES', keys: ['bytes'] },
      ...(audited
        ? [
            { header: 'POLICY', keys: ['policy'] },
            { header: 'MISSING', keys: ['missing'] },
            { header: 'DISAPPEARED', keys: ['disappeared'] },
            { header: 'LAST_SWEEP', keys: ['last_sweep'] },
            { header: 'AUDITED', keys: ['audited'] },
          ]
        : []),
    ];
    table(
      io,
      columns,
      registries.map((r) => {
        const cached = isRow(r.cached) ? r.cached : {};
        const a = isRow(r.audit) ? r.audit : undefined;
        const last = a && isRow(a.last_sweep) ? a.last_sweep : undefined;
        return {
          name: r.name,
          type: r.type,
          // A group lists its members and each one's state (decision 0051).
          mode: Array.isArray(r.members)
            ? `group: ${r.members.map((m) => (isRow(m) ? `${cell(m.name)} (${cell(m.state)})` : '')).join(', ')}`
            : r.mode,
          artifacts: cached.artifacts,
          bytes: cached.bytes === undefined ? undefined : bytes(cached.bytes),
          ...(a && {
            policy: `${cell(a.policy)}${a.overridden ? ' (overridden)' : ''}`,
            missing: a.missing,
            disappeared: a.disappeared,
            last_sweep: last ? `${cell(last.at)} (${cell(last.outcome)})` : 'never',
            audited: a.audited === false ? `no${a.reason ? `: ${cell(a.reason)}` : ''}` : 'yes',
          }),
        };
      }),
    );
    return ok ? 0 : 1;
  },
});
