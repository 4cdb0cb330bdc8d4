/**
 * packages unlist|relist|unlisted: /api/v1/admin/unlist. packages publish-status|published|unpublish:
 * /api/v1/admin/local-packages (what was published to local and hybrid registries).
 */
import { adminCommand, commandGroup, connectionHelp } from '../command.js';
import { listCommand } from '../list-command.js';
import { optionOrPositional, str } from '../options.js';
import { coordinate, printJson, table } from '../output.js';
import { packagesList, packagesShow } from './package-catalog.js';
import { claim, claims, unclaim } from './claims.js';

const OPTIONS = { registry: { type: 'string' }, package: { type: 'string' }, version: { type: 'string' } } as const;

function listingCommand(op: 'unlist' | 'relist') {
  const help =
    op === 'unlist'
      ? `Usage: hub packages unlist --registry R --package P --version V [--relist]
       hub packages unlist <registry> <package> <version>

Unlists a version: it disappears from every listing (version lists, @latest and dist-tags,
packuments, maven-metadata, search) but stays downloadable by its exact version, so builds that
pin it keep working. --relist (or hub packages relist) undoes it.

Options:
  --registry R       the registry name from hub.toml (required)
  --package P        the canonical package name, e.g. @scope/name, group:artifact (required)
  --version V        the version (required)
  --relist           list the version again instead

Needs permission system:write.

Example:
  hub packages unlist --registry npm --package left-pad --version 1.3.0

${connectionHelp('system:write')}`
      : `Usage: hub packages relist --registry R --package P --version V
       hub packages relist <registry> <package> <version>

Lists an unlisted version again (the same as hub packages unlist --relist).

Options:
  --registry R       the registry name from hub.toml (required)
  --package P        the canonical package name (required)
  --version V        the version (required)

Needs permission system:write.

Example:
  hub packages relist --registry npm --package left-pad --version 1.3.0

${connectionHelp('system:write')}`;
  return adminCommand({
    name: `packages ${op}`,
    routes: [
      op === 'unlist' ? 'POST /api/v1/admin/unlist' : 'DELETE /api/v1/admin/unlist',
      ...(op === 'unlist' ? ['DELETE /api/v1/admin/unlist'] : []),
    ],
    help,
    options: op === 'unlist' ? { ...OPTIONS, relist: { type: 'boolean' } } : OPTIONS,
    positionals: { min: 0, max: 3 },
    async run({ io, values, positionals, json, api, command }) {
      const body = {
        registry: optionOrPositional(values, 'registry', positionals[0], command, { required: true })!,
        package_name: optionOrPositional(values, 'package', positionals[1], command, { required: true })!,
        version: optionOrPositional(values, 'version', positionals[2], command, { required: true })!,
      };
      const relist = op === 'relist' || values.relist === true;
      const answer = await api.call(relist ? 'DELETE' : 'POST', '/api/v1/admin/unlist', { body });
      if (json) printJson(io, answer);
      else
        io.out(`${relist ? 'relisted' : 'unlisted'} ${coordinate(body.registry, body.package_name, body.version)}\n`);
      return 0;
    },
  });
}

const unlisted = listCommand({
  name: 'packages unlisted',
  route: 'GET /api/v1/admin/unlist',
  help: `Usage: hub packages unlisted [--registry R] [--package P]

Lists unlisted versions, with who unlisted them and when.

Options:
  --registry R       only this registry
  --package P        only this package (canonical name)

Needs permission system:read.

Example:
  hub packages unlisted --registry npm

${connectionHelp('system:read')}`,
  options: { registry: { type: 'string' }, package: { type: 'string' } },
  query: ({ values, command }) => ({
    registry: str(values, 'registry', command),
    package_name: str(values, 'package', command),
  }),
  rows: 'unlisted',
  columns: [
    { header: 'REGISTRY', keys: ['registry'] },
    { header: 'PACKAGE', keys: ['package_name'] },
    { header: 'VERSION', keys: ['version'] },
    { header: 'UNLISTED_BY', keys: ['unlisted_by'] },
    { header: 'CREATED', keys: ['created_at'] },
  ],
  empty: 'no unlisted versions',
});

const publishStatus = adminCommand({
  name: 'packages publish-status',
  routes: ['GET /api/v1/admin/local-packages/status'],
  help: `Usage: hub packages publish-status <registry> <package>
       hub packages publish-status --registry R --package P

Shows a package published to a local or hybrid registry: its versions (who published each, when,
yanked or deprecated), the tombstones of deleted versions (their numbers are never published
again), and whether the upstream is ever asked about the name (local_only).

Options:
  --registry R       the registry name from hub.toml (required)
  --package P        the canonical package name (required)

Needs permission system:read.

Example:
  hub packages publish-status npm-internal @acme/tools

${connectionHelp('system:read')}`,
  options: { registry: { type: 'string' }, package: { type: 'string' } },
  positionals: { min: 0, max: 2 },
  async run({ io, values, positionals, json, api, command }) {
    const registry = optionOrPositional(values, 'registry', positionals[0], command, { required: true })!;
    const pkg = optionOrPositional(values, 'package', positionals[1], command, { required: true })!;
    const answer = (await api.call('GET', '/api/v1/admin/local-packages/status', {
      query: { registry, package: pkg },
    })) as {
      local_only: boolean;
      versions: Array<Record<string, unknown>>;
      tombstones: string[];
    };
    if (json) return (printJson(io, answer), 0);
    io.out(
      `${coordinate(registry, pkg)}: ${answer.versions.length} version(s) published; ${answer.local_only ? 'local only: the upstream is never asked about this name' : 'the upstream may also serve this name'}\n`,
    );
    if (answer.versions.length)
      table(
        io,
        [
          { header: 'VERSION', keys: ['version'] },
          { header: 'PUBLISHED', keys: ['published_at'] },
          { header: 'PUBLISHER', keys: ['publisher'] },
          { header: 'YANKED', keys: ['yanked'] },
          { header: 'DEPRECATED', keys: ['deprecated'] },
        ],
        answer.versions,
      );
    if (answer.tombstones.length) io.out(`deleted, never to be published again: ${answer.tombstones.join(', ')}\n`);
    return 0;
  },
});

const published = listCommand({
  name: 'packages published',
  route: 'GET /api/v1/admin/local-packages',
  help: `Usage: hub packages published [--registry R]

Lists the packages published to local and hybrid registries.

Options:
  --registry R       only this registry

Needs permission system:read.

Example:
  hub packages published --registry npm-internal

${connectionHelp('system:read')}`,
  options: { registry: { type: 'string' } },
  query: ({ values, command }) => ({ registry: str(values, 'registry', command) }),
  rows: 'packages',
  columns: [
    { header: 'REGISTRY', keys: ['registry'] },
    { header: 'PACKAGE', keys: ['name'] },
    { header: 'LOCAL_ONLY', keys: ['local_only'] },
    { header: 'CREATED', keys: ['created_at'] },
  ],
  empty: 'nothing published',
});

const unpublish = adminCommand({
  name: 'packages unpublish',
  routes: ['DELETE /api/v1/admin/local-packages/versions'],
  help: `Usage: hub packages unpublish <registry> <package> <version>
       hub packages unpublish --registry R --package P --version V

Deletes a published version and its files. A tombstone stays: the version number can never be
published again (clients and lock files that saw it must not get other bytes under it).

Options:
  --registry R       the registry name from hub.toml (required)
  --package P        the canonical package name (required)
  --version V        the version (required)

Needs permission system:write.

Example:
  hub packages unpublish npm-internal @acme/tools 1.2.0

${connectionHelp('system:write')}`,
  options: OPTIONS,
  positionals: { min: 0, max: 3 },
  async run({ io, values, positionals, json, api, command }) {
    const body = {
      registry: optionOrPositional(values, 'registry', positionals[0], command, { required: true })!,
      package_name: optionOrPositional(values, 'package', positionals[1], command, { required: true })!,
      version: optionOrPositional(values, 'version', positionals[2], command, { required: true })!,
    };
    const answer = await api.call('DELETE', '/api/v1/admin/local-packages/versions', { body });
    if (json) printJson(io, answer);
    else
      io.out(
        `unpublished ${coordinate(body.registry, body.package_name, body.version)}; its version number stays taken\n`,
      );
    return 0;
  },
});

const localOnly = adminCommand({
  name: 'packages local-only',
  routes: ['POST /api/v1/admin/local-packages/local-only'],
  help: `Usage: hub packages local-only <registry> <package> [--off]
       hub packages local-only --registry R --package P [--off]

Marks a package published to a hybrid registry as local only: the upstream is never asked about
the name, so an upstream package of the same name cannot shadow it. --off lets the upstream serve
the name again.

Options:
  --registry R       the registry name from hub.toml (required)
  --package P        the canonical package name (required)
  --off              clear local_only instead of setting it

Needs permission system:write.

Example:
  hub packages local-only npm-internal @acme/tools

${connectionHelp('system:write')}`,
  options: { registry: { type: 'string' }, package: { type: 'string' }, off: { type: 'boolean' } },
  positionals: { min: 0, max: 2 },
  async run({ io, values, positionals, json, api, command }) {
    const body = {
      registry: optionOrPositional(values, 'registry', positionals[0], command, { required: true })!,
      package_name: optionOrPositional(values, 'package', positionals[1], command, { required: true })!,
      local_only: values.off !== true,
    };
    const answer = await api.call('POST', '/api/v1/admin/local-packages/local-only', { body });
    if (json) printJson(io, answer);
    else
      io.out(
        `${coordinate(body.registry, body.package_name)}: ${body.local_only ? 'local only: the upstream is never asked about this name' : 'the upstream may serve this name again'}\n`,
      );
    return 0;
  },
});

export const packages = commandGroup(
  'packages',
  `Usage: hub packages <sub-command> [options]

Lists and shows the packages hub holds, hides versions from listings while keeping them
downloadable by exact version, and shows what was published to local and hybrid registries.

Sub-commands:
  list [--registry R] [--query Q] [--page N]       search the packages hub holds (system:read)
  show <registry> <package> [--prereleases]        one package's versions, blocks, flags (system:read)
  unlist --registry R --package P --version V      unlist a version (system:write)
  relist --registry R --package P --version V      list it again (system:write)
  unlisted [--registry R] [--package P]            list unlisted versions (system:read)
  published [--registry R]                         list published packages (system:read)
  publish-status <registry> <package>              versions and tombstones of one (system:read)
  unpublish <registry> <package> <version>         delete a published version (system:write)
  local-only <registry> <package> [--off]          never ask the upstream about the name (system:write)
  claim <registry> <package>                       let a hybrid registry publish a name its upstream has (system:write)
  unclaim <registry> <package>                     drop that claim (system:write)
  claims <registry>                                list the claimed names (system:read)

Run 'hub packages <sub-command> --help' for its options.`,
  {
    list: packagesList,
    show: packagesShow,
    unlist: listingCommand('unlist'),
    relist: listingCommand('relist'),
    unlisted,
    published,
    'publish-status': publishStatus,
    unpublish,
    'local-only': localOnly,
    claim,
    unclaim,
    claims,
  },
);
