/** cache purge: DELETE /api/v1/admin/cache/<registry>/<package>[/<version>]; cache revalidate: POST /api/v1/admin/cache/revalidate. */
import { seg } from '../client.js';
import { adminCommand, commandGroup, connectionHelp } from '../command.js';
import { optionOrPositional, required, str } from '../options.js';
import { cell, coordinate, printable, printJson, type Row } from '../output.js';

const purge = adminCommand({
  name: 'cache purge',
  routes: ['DELETE /api/v1/admin/cache/:registry/:package', 'DELETE /api/v1/admin/cache/:registry/:package/:version'],
  help: `Usage: hub cache purge --registry R --package P [--version V]

Deletes what the hub has cached for a package (every version and its metadata) or for one
version, so the next request fetches it from upstream again: the remedy for a corrupt or
truncated cached artifact. Each removal is written to the audit log as action "delete".

Options:
  --registry R       the registry name from hub.toml (required)
  --package P        the canonical package name (required)
  --version V        only this version

Needs permission system:write.

Example:
  hub cache purge --registry gems --package rails --version 7.1.3

${connectionHelp('system:write')}`,
  options: { registry: { type: 'string' }, package: { type: 'string' }, version: { type: 'string' } },
  positionals: { min: 0, max: 3 },
  async run({ io, values, positionals, json, api, command }) {
    const registry = optionOrPositional(values, 'registry', positionals[0], command, { required: true })!;
    const name = optionOrPositional(values, 'package', positionals[1], command, { required: true })!;
    const version = optionOrPositional(values, 'version', positionals[2], command, { required: false });
    const answer = await api.call<Row>(
      'DELETE',
      `/api/v1/admin/cache/${seg(registry)}/${seg(name)}${version !== undefined ? `/${seg(version)}` : ''}`,
    );
    if (json) printJson(io, answer);
    else {
      const counts = Object.entries(answer)
        .filter(([, v]) => typeof v === 'number')
        .map(([k, v]) => `${k.replace(/_/g, ' ')} ${cell(v)}`);
      io.out(`purged ${coordinate(registry, name, version)}${counts.length ? ` (${counts.join(', ')})` : ''}\n`);
    }
    return 0;
  },
});

/** `name@version` split at its last `@` past the first character (npm scopes start with one). */
function nameAndVersion(text: string): { name: string; version?: string } {
  const at = text.lastIndexOf('@');
  return at > 0 ? { name: text.slice(0, at), version: text.slice(at + 1) } : { name: text };
}

interface Revalidated {
  before: string[];
  after: string[];
  added: string[];
  gone: string[];
  fetched_at: string;
  version?: string;
  listed?: boolean;
  documents: Array<{ key: string; outcome: string; detail?: string }>;
  effects: Record<string, unknown>;
}

const revalidate = adminCommand({
  name: 'cache revalidate',
  routes: ['POST /api/v1/admin/cache/revalidate'],
  help: `Usage: hub cache revalidate --registry R PACKAGE[@VERSION]
       hub cache revalidate --registry R --package P [--version V]

Asks the upstream for a package's listing now (packument, index file, project page,
maven-metadata, go version list, NuGet registration, OCI tags ...), past the registry's
metadata TTL, and replaces the cached copy when the answer is a valid listing. Prints the
versions that were added and those that went. An answer that is not a valid listing (an error
page, a 5xx) replaces nothing: the command fails and the cached copy stays. When held versions
went, the upstream audit (when loaded) sweeps the package at once, as a sweep would.
Recorded in the audit log as action "revalidate".

Options:
  --registry R       the registry name from hub.toml (required)
  --package P        the canonical package name (or the PACKAGE positional)
  --version V        also say whether the upstream lists this version (or PACKAGE@VERSION)

Needs permission system:write.

Examples:
  hub cache revalidate --registry npm left-pad
  hub cache revalidate --registry pypi requests@2.32.3

${connectionHelp('system:write')}`,
  options: { registry: { type: 'string' }, package: { type: 'string' }, version: { type: 'string' } },
  positionals: { min: 0, max: 1 },
  async run({ io, values, positionals, json, api, command }) {
    const registry = required(values, 'registry', command);
    const given = optionOrPositional(values, 'package', positionals[0], command, { required: true })!;
    const split = values.package === undefined ? nameAndVersion(given) : { name: given };
    const version = str(values, 'version', command) ?? split.version;
    const body = { registry, package: split.name, ...(version !== undefined && { version }) };
    const r = await api.call<Revalidated>('POST', '/api/v1/admin/cache/revalidate', { body });
    if (json) {
      printJson(io, r);
      return 0;
    }
    const list = (vs: string[]) => (vs.length ? vs.map(printable).join(' ') : 'none');
    io.out(
      `revalidated ${coordinate(registry, split.name)} at ${printable(r.fetched_at)}: ${r.before.length} version(s) before, ${r.after.length} now\n`,
    );
    io.out(`  added: ${list(r.added)}\n  gone:  ${list(r.gone)}\n`);
    if (version !== undefined) io.out(`  ${printable(version)}: ${r.listed ? 'listed' : 'not listed'} upstream\n`);
    for (const d of r.documents)
      io.out(`  ${printable(d.key)}: ${d.outcome}${d.detail ? ` (${printable(d.detail)})` : ''}\n`);
    const audit = r.effects.audit as
      { swept?: boolean; missing?: string[]; disappeared?: string[]; cleared?: string[] } | undefined;
    if (audit?.swept)
      io.out(
        `  upstream audit: missing ${list(audit.missing ?? [])}; disappeared ${list(audit.disappeared ?? [])}; answers again ${list(audit.cleared ?? [])}\n`,
      );
    return 0;
  },
});

export const cache = commandGroup(
  'cache',
  `Usage: hub cache purge --registry R --package P [--version V]
       hub cache revalidate --registry R PACKAGE[@VERSION]

Manages the hub's cache.

Sub-commands:
  purge       delete a package's or a version's cached artifacts (system:write)
  revalidate  refetch a package's listing now and show the versions added and gone (system:write)

Run 'hub cache <sub-command> --help' for its options.`,
  { purge, revalidate },
);
