/** packages list|show: the package catalog and one package's page (/api/v1/admin/packages). */
import type { PackageDetailAnswer } from '@hub/admin';
import { adminCommand, connectionHelp } from '../command.js';
import { listCommand } from '../list-command.js';
import { optionOrPositional, positiveInt, str } from '../options.js';
import { printJson, table } from '../output.js';

const seg = encodeURIComponent;

export const packagesList = listCommand({
  name: 'packages list',
  route: 'GET /api/v1/admin/packages',
  help: `Usage: hub packages list [--registry R] [--query Q] [--page N] [--per-page N]

Lists the packages hub holds, by registry and name: versions and bytes held, downloads, the last
download, blocked and flagged versions, and the upstream audit's state (ok, missing, disappeared).

Options:
  --registry R       only this registry
  --query Q          only names containing Q (the canonical name, case-sensitive)
  --page N           the page (default 1; past the last page, the last page)
  --per-page N       packages per page (default: the server's [limits] packages_per_page)

Needs permission system:read.

Example:
  hub packages list --registry npm --query lodash

${connectionHelp('system:read')}`,
  options: { registry: { type: 'string' }, query: { type: 'string' } },
  query: ({ values, command }) => ({ registry: str(values, 'registry', command), q: str(values, 'query', command) }),
  rows: 'items',
  columns: [
    { header: 'REGISTRY', keys: ['registry'] },
    { header: 'PACKAGE', keys: ['name'] },
    { header: 'VERSIONS', keys: ['versions_held'] },
    { header: 'BYTES', keys: ['bytes_held'] },
    { header: 'PULLS', keys: ['pulls'] },
    { header: 'LAST_PULL', keys: ['last_pull_at'] },
    { header: 'BLOCKED', keys: ['blocked_versions'] },
    { header: 'FLAGGED', keys: ['flagged_versions'] },
    { header: 'UPSTREAM', keys: ['upstream_state'] },
  ],
  empty: 'no packages held',
  paging: { by: 'number' },
});

export const packagesShow = adminCommand({
  name: 'packages show',
  routes: ['GET /api/v1/admin/packages/:registry/:package'],
  help: `Usage: hub packages show <registry> <package> [--query Q] [--prereleases] [--page N] [--per-page N]

Shows one package: its versions newest first (in the registry's own version order), whether each
is held, unlisted, blocked (and by whom), flagged, disappeared upstream, its provenance; downloads and the last
download; and the dependencies read from the held file. Pre-releases are hidden unless asked for.

Options:
  --registry R       the registry name from hub.toml (or the first argument)
  --package P        the canonical package name (or the second argument)
  --query Q          only versions containing Q
  --prereleases      show pre-releases too
  --page N           the page (default 1)
  --per-page N       versions per page (default 25)

Needs permission system:read.

Example:
  hub packages show npm @scope/name --prereleases

${connectionHelp('system:read')}`,
  options: {
    registry: { type: 'string' },
    package: { type: 'string' },
    query: { type: 'string' },
    prereleases: { type: 'boolean' },
    page: { type: 'string' },
    'per-page': { type: 'string' },
  },
  positionals: { min: 0, max: 2 },
  async run({ io, values, positionals, json, api, command }) {
    const registry = optionOrPositional(values, 'registry', positionals[0], command, { required: true })!;
    const pkg = optionOrPositional(values, 'package', positionals[1], command, { required: true })!;
    const query = {
      q: str(values, 'query', command),
      prereleases: values.prereleases === true ? 'show' : undefined,
      page: positiveInt(str(values, 'page', command), 'page', command)?.toString(),
      per_page: positiveInt(str(values, 'per-page', command), 'per-page', command)?.toString(),
    };
    const answer = await api.call<PackageDetailAnswer>('GET', `/api/v1/admin/packages/${seg(registry)}/${seg(pkg)}`, {
      query,
    });
    if (json) return (printJson(io, answer), 0);
    io.out(
      `${answer.registry} ${answer.name}: upstream ${answer.upstream_state ?? 'not audited'}; ${answer.matched} of ${answer.total} version(s) shown${answer.prereleases_hidden ? `, ${answer.prereleases_hidden} pre-release(s) hidden` : ''}\n`,
    );
    if (answer.versions.length)
      table(
        io,
        [
          { header: 'VERSION', keys: ['version'] },
          { header: 'HELD', keys: ['held'] },
          { header: 'BYTES', keys: ['bytes'] },
          { header: 'UNLISTED', keys: ['unlisted'] },
          { header: 'BLOCKED', keys: ['blocked_by'] },
          { header: 'FLAGS', keys: ['flag_ids'] },
          { header: 'DISAPPEARED', keys: ['disappeared'] },
          { header: 'PROVENANCE', keys: ['provenance_text'] },
          { header: 'PULLS', keys: ['pulls'] },
          { header: 'LAST_PULL', keys: ['last_pull_at'] },
          { header: 'DEPENDENCIES', keys: ['deps'] },
        ],
        answer.versions.map((v) => ({
          ...v,
          blocked_by: v.blocked ? `${v.blocked.by}${v.blocked.reason ? `: ${v.blocked.reason}` : ''}` : null,
          flag_ids: v.flags.map((f) => `${f.source}/${f.id} (${f.effect})`),
          deps: v.dependencies.map((d) => `${d.name}@${d.range}`),
          // @hub/provenance's result: the source repository when verified, else why not.
          provenance_text: v.provenance
            ? v.provenance.status === 'verified'
              ? `verified ${v.provenance.source_repository ?? ''}${v.provenance.source_changed ? ' (source changed)' : ''}`.trim()
              : `${v.provenance.status}: ${v.provenance.reason ?? ''}`
            : null,
        })),
      );
    const pages = Math.max(1, Math.ceil(answer.matched / answer.per_page));
    if (pages > 1) io.err(`page ${answer.page} of ${pages}\n`);
    return 0;
  },
});
