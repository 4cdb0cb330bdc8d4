/** cache purge: DELETE /api/v1/admin/cache/<registry>/<package>[/<version>]. */
import { seg } from '../client.js';
import { adminCommand, commandGroup, connectionHelp } from '../command.js';
import { optionOrPositional } from '../options.js';
import { cell, coordinate, printJson, type Row } from '../output.js';

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
    const answer = await api.call<Row>('DELETE', `/api/v1/admin/cache/${seg(registry)}/${seg(name)}${version !== undefined ? `/${seg(version)}` : ''}`);
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

export const cache = commandGroup(
  'cache',
  `Usage: hub cache purge --registry R --package P [--version V]

Manages the hub's cache.

Sub-commands:
  purge      delete a package's or a version's cached artifacts (system:write)

Run 'hub cache purge --help' for its options.`,
  { purge },
);
