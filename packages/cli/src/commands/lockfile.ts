/**
 * hub lockfile check / release, and hub warm (@hub/lockfile: POST /api/v1/admin/lockfile/check and /release).
 * Warming fetches each missing file from hub's own registry routes with the caller's token, as a client would.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { warmEntries, type HubGet, type WarmEntry, type WarmResult } from '@hub/lockfile/warm';
import { adminCommand, commandGroup, connectionHelp } from '../command.js';
import type { AdminClient } from '../client.js';
import type { Io } from '../io.js';
import { printJson, table, type Row } from '../output.js';
import { str, type Values } from '../options.js';
import { UsageError } from '../usage.js';

interface CheckAnswer {
  format: string;
  registry: string | null;
  installable: boolean;
  counts: Record<string, number>;
  entries: Array<WarmEntry & { installable: boolean; effect?: string; until?: string }>;
  marked?: number;
}

/** A lockfile larger than this is not sent (the server's own limit is [lockfile] max_bytes). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

function readLockfile(file: string, command: string): string {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    throw new UsageError(`cannot read "${file}"`, command);
  }
  if (!st.isFile()) throw new UsageError(`"${file}" is not a file`, command);
  if (st.size > MAX_FILE_BYTES) throw new UsageError(`"${file}" is larger than ${MAX_FILE_BYTES} bytes`, command);
  return fs.readFileSync(file, 'utf8');
}

async function checkFile(
  api: AdminClient,
  file: string,
  values: Values,
  command: string,
  extra: Record<string, unknown> = {},
): Promise<CheckAnswer> {
  const body = {
    lockfile: readLockfile(file, command),
    file_name: path.basename(file),
    registry: str(values, 'registry', command),
    format: str(values, 'format', command),
    ...extra,
  };
  return api.call<CheckAnswer>('POST', '/api/v1/admin/lockfile/check', { body });
}

const detail = (e: CheckAnswer['entries'][number]): string =>
  [e.effect && `effect ${e.effect}`, e.until && `until ${e.until}`, e.reason].filter(Boolean).join('; ');

const checkHelp = `Usage: hub lockfile check FILE... [--registry R] [--format F] [--mark-required LABEL]

Reads each lockfile and answers per entry whether an install through hub gets it now:
  held                hub holds it (and its digest matches the lockfile's)
  fetchable           the upstream has it; hub fetches it on the first install
  blocked             a block or a refusal rule refuses it (with the reason)
  flagged             a flag source flagged it (with the effect; info and warn still install)
  cooldown            newer than the registry's min_release_age_secs (until when)
  unlisted            an administrator unlisted it
  unknown_upstream    neither hub nor the upstream has it (or the upstream did not answer)
  integrity_mismatch  the lockfile's hash differs from the bytes hub holds (a rewritten release)
  no_registry         no registry of this hub serves the lockfile's ecosystem

Formats (told by the file name, else the content): package-lock.json (v2, v3), pnpm-lock.yaml,
yarn.lock (classic and berry), Cargo.lock, go.sum, Gemfile.lock, requirements.txt with
--hash, poetry.lock, uv.lock, NuGet packages.lock.json.

Options:
  --registry R          the registry serving the lockfile's ecosystem (default: the only
                        registry of that type)
  --format F            package-lock, pnpm, yarn-classic, yarn-berry, cargo, go-sum, gemfile,
                        requirements, poetry, uv or nuget-lock (default: detected)
  --mark-required LABEL record held and fetchable entries as required (cleanup never removes
                        them) until hub lockfile release LABEL; needs system:write too

Needs permission system:read.

Examples:
  hub lockfile check package-lock.json
  hub lockfile check --registry crates Cargo.lock --mark-required release-2.4

${connectionHelp('system:read', 'Exit status: 0 every entry can be installed; 1 some cannot, or the request failed; 2 bad usage.')}`;

const check = adminCommand({
  name: 'lockfile check',
  routes: ['POST /api/v1/admin/lockfile/check'],
  help: checkHelp,
  options: { registry: { type: 'string' }, format: { type: 'string' }, 'mark-required': { type: 'string' } },
  positionals: { min: 1, max: 1000 },
  async run({ io, values, positionals, json, api, command }) {
    const label = str(values, 'mark-required', command);
    const answers: Array<CheckAnswer & { file: string }> = [];
    for (const file of positionals)
      answers.push({ file, ...(await checkFile(api, file, values, command, label ? { mark_required: label } : {})) });
    const ok = answers.every((a) => a.installable);
    if (json) return (printJson(io, answers.length === 1 ? answers[0] : answers), ok ? 0 : 1);
    for (const a of answers) {
      io.out(
        `${a.file}: ${a.format}, registry ${a.registry ?? '(none)'}, ${a.entries.length} entries: ${
          Object.entries(a.counts)
            .map(([s, n]) => `${n} ${s}`)
            .join(', ') || 'none'
        }${a.marked !== undefined ? `; ${a.marked} marked required` : ''}\n`,
      );
      const rows = a.entries.filter((e) => e.status !== 'held') as unknown as Row[];
      if (rows.length)
        table(
          io,
          [
            { header: 'STATUS', keys: ['status'] },
            { header: 'NAME', keys: ['name'] },
            { header: 'VERSION', keys: ['version'] },
            { header: 'DETAIL', keys: ['detail'] },
          ],
          a.entries.filter((e) => e.status !== 'held').map((e) => ({ ...e, detail: detail(e) })),
        );
    }
    io.out(ok ? 'every entry can be installed through hub\n' : 'some entries cannot be installed through hub\n');
    return ok ? 0 : 1;
  },
});

const release = adminCommand({
  name: 'lockfile release',
  routes: ['POST /api/v1/admin/lockfile/release'],
  help: `Usage: hub lockfile release LABEL

Releases the versions hub lockfile check --mark-required LABEL recorded as required, so
cleanup may remove them again.

Needs permission system:write.

${connectionHelp('system:write')}`,
  positionals: { min: 1, max: 1 },
  async run({ io, positionals, json, api }) {
    const answer = await api.call<{ released: number }>('POST', '/api/v1/admin/lockfile/release', {
      body: { label: positionals[0] },
    });
    if (json) return (printJson(io, answer), 0);
    io.out(
      `released ${answer.released} required version${answer.released === 1 ? '' : 's'} of label ${positionals[0]}\n`,
    );
    return 0;
  },
});

export const lockfile = commandGroup(
  'lockfile',
  `Usage: hub lockfile check FILE... [options]
       hub lockfile release LABEL

Whether a lockfile's packages can be installed through hub (@hub/lockfile); hub warm fetches the missing ones.`,
  { check, release },
);

/** GETs on the hub with the caller's token (no timeout on the body: an artifact may be large). */
function hubGet(api: AdminClient): HubGet {
  return async (p, accept) => {
    const res = await fetch(`${api.url}${p}`, {
      headers: {
        'user-agent': 'hub-warm',
        ...(api.token ? { authorization: `Bearer ${api.token}` } : {}),
        ...(accept ? { accept } : {}),
      },
    });
    return {
      status: res.status,
      body: res.body ? Readable.fromWeb(res.body as never) : Readable.from([]),
      json: () => res.json(),
    };
  };
}

/** A bar on a terminal, a line per entry otherwise. */
function progress(io: Io, total: number): (r: WarmResult, done: number) => void {
  const tty = io.stdout !== undefined && (io.stdout as { isTTY?: boolean }).isTTY === true;
  return (r, done) => {
    if (tty) {
      const width = 30;
      const filled = Math.round((done / total) * width);
      io.err(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${r.entry.name}@${r.entry.version}`
          .slice(0, 120)
          .padEnd(120),
      );
      if (done === total) io.err('\n');
    } else
      io.err(
        `warm ${done}/${total} ${r.outcome} ${r.entry.name} ${r.entry.version}${r.detail ? ` (${r.detail})` : ''}\n`,
      );
  };
}

export const warm = adminCommand({
  name: 'warm',
  routes: ['POST /api/v1/admin/lockfile/check'],
  help: `Usage: hub warm FILE... [--registry R] [--format F] [--concurrency N]

Fetches every entry of the lockfiles hub does not hold yet through hub's own registry routes,
with your token, as a package manager would: the cache, verification, blocks, cool-down and
the audit log apply. Afterwards a build from these lockfiles installs while the upstream is
down. Entries that are blocked, flagged with a refusing effect, in cool-down, unlisted or
unknown upstream are not fetched (refused). A progress bar on a terminal, a line per entry
otherwise, then a summary: fetched, already held, refused, failed, bytes, seconds.

Options:
  --registry R      as for hub lockfile check
  --format F        as for hub lockfile check
  --concurrency N   fetches at a time (default 8)

Needs permissions system:read and source:read on the registry.

${connectionHelp('system:read', 'Exit status: 0 every entry is held now; 1 some were refused or failed, or the request failed; 2 bad usage.', { json: 'print the summary and each result as JSON' })}`,
  options: { registry: { type: 'string' }, format: { type: 'string' }, concurrency: { type: 'string' } },
  positionals: { min: 1, max: 1000 },
  async run({ io, values, positionals, json, api, command }) {
    const c = str(values, 'concurrency', command);
    const concurrency = c === undefined ? 8 : Number(c);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
      throw new UsageError('--concurrency must be an integer from 1 to 64', command);
    const entries: WarmEntry[] = [];
    for (const file of positionals) entries.push(...(await checkFile(api, file, values, command)).entries);
    const { results, summary } = await warmEntries(entries, hubGet(api), {
      concurrency,
      onResult: json ? undefined : progress(io, entries.length),
    });
    const ok = summary.refused === 0 && summary.failed === 0;
    if (json)
      return (
        printJson(io, {
          summary,
          results: results.map((r) => ({
            name: r.entry.name,
            version: r.entry.version,
            registry: r.entry.registry,
            outcome: r.outcome,
            bytes: r.bytes,
            detail: r.detail,
          })),
        }),
        ok ? 0 : 1
      );
    for (const r of results.filter((x) => x.outcome === 'refused' || x.outcome === 'failed'))
      io.out(`${r.outcome}: ${r.entry.name} ${r.entry.version}${r.detail ? `: ${r.detail}` : ''}\n`);
    io.out(
      `${summary.entries} entries: ${summary.fetched} fetched, ${summary.already_held} already held, ${summary.refused} refused, ${summary.failed} failed; ${summary.bytes} bytes in ${summary.seconds}s\n`,
    );
    return ok ? 0 : 1;
  },
});
