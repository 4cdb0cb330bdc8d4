/**
 * packages claim|unclaim|claims: /api/v1/admin/registries/<registry>/claims (decision 0043). A first publish to a
 * hybrid registry of a name its upstream has is refused unless the name is claimed for the registry.
 */
import { seg } from '../client.js';
import { adminCommand, connectionHelp } from '../command.js';
import { optionOrPositional } from '../options.js';
import { listCommand } from '../list-command.js';
import { coordinate, printJson } from '../output.js';

const OPTIONS = { registry: { type: 'string' }, package: { type: 'string' } } as const;

export const claim = adminCommand({
  name: 'packages claim',
  routes: ['POST /api/v1/admin/registries/:registry/claims'],
  help: `Usage: hub packages claim <registry> <package>
       hub packages claim --registry R --package P

Claims a name for a hybrid registry. A first publish of a name the upstream already has is
refused (409 name_exists_upstream): once published here, the name is local only and the
upstream's versions of it disappear for every reader. Claim it when that is what you want,
e.g. an internal package that must win over a public one of the same name.

Options:
  --registry R       a hybrid registry's name from hub.toml (required)
  --package P        the canonical package name, e.g. @scope/name, group:artifact (required)

Needs permission system:write. The claim is an audit-log row (package_claim).

Example:
  hub packages claim npm leftpad

${connectionHelp('system:write')}`,
  options: OPTIONS,
  positionals: { min: 0, max: 2 },
  async run({ io, values, positionals, json, api, command }) {
    const registry = optionOrPositional(values, 'registry', positionals[0], command, { required: true })!;
    const pkg = optionOrPositional(values, 'package', positionals[1], command, { required: true })!;
    const answer = await api.call('POST', `/api/v1/admin/registries/${seg(registry)}/claims`, {
      body: { package: pkg },
    });
    if (json) printJson(io, answer);
    else
      io.out(
        `claimed ${coordinate(registry, pkg)}: it may be published there though the upstream has it, and then hides the upstream's versions\n`,
      );
    return 0;
  },
});

export const unclaim = adminCommand({
  name: 'packages unclaim',
  routes: ['DELETE /api/v1/admin/registries/:registry/claims/:package'],
  help: `Usage: hub packages unclaim <registry> <package>
       hub packages unclaim --registry R --package P

Drops a claim. Versions already published stay (and so does the name they hold); a name never
published is again refused while the upstream has it.

Options:
  --registry R       a hybrid registry's name from hub.toml (required)
  --package P        the canonical package name (required)

Needs permission system:write.

Example:
  hub packages unclaim npm leftpad

${connectionHelp('system:write')}`,
  options: OPTIONS,
  positionals: { min: 0, max: 2 },
  async run({ io, values, positionals, json, api, command }) {
    const registry = optionOrPositional(values, 'registry', positionals[0], command, { required: true })!;
    const pkg = optionOrPositional(values, 'package', positionals[1], command, { required: true })!;
    const answer = await api.call('DELETE', `/api/v1/admin/registries/${seg(registry)}/claims/${seg(pkg)}`);
    if (json) printJson(io, answer);
    else io.out(`dropped the claim on ${coordinate(registry, pkg)}\n`);
    return 0;
  },
});

export const claims = listCommand({
  name: 'packages claims',
  route: 'GET /api/v1/admin/registries/:registry/claims',
  help: `Usage: hub packages claims <registry>
       hub packages claims --registry R

Lists the names claimed for a hybrid registry, who claimed each and when.

Options:
  --registry R       a hybrid registry's name from hub.toml (required)

Needs permission system:read.

Example:
  hub packages claims npm

${connectionHelp('system:read')}`,
  options: { registry: { type: 'string' } },
  positionals: { min: 0, max: 1 },
  path: ({ values, positionals, command }) =>
    `/api/v1/admin/registries/${seg(optionOrPositional(values, 'registry', positionals[0], command, { required: true })!)}/claims`,
  rows: 'claims',
  columns: [
    { header: 'REGISTRY', keys: ['registry'] },
    { header: 'PACKAGE', keys: ['package'] },
    { header: 'CLAIMED_BY', keys: ['claimed_by'] },
    { header: 'CLAIMED', keys: ['claimed_at'] },
  ],
  empty: 'no name is claimed',
});
