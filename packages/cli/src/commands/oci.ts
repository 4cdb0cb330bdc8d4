/** oci gc: POST /api/v1/admin/registries/<registry>/gc (decision 0055). */
import { seg } from '../client.js';
import { adminCommand, commandGroup, connectionHelp } from '../command.js';
import { optionOrPositional } from '../options.js';
import { printJson, rowsOf, table } from '../output.js';

const gc = adminCommand({
  name: 'oci gc',
  routes: ['POST /api/v1/admin/registries/:registry/gc'],
  help: `Usage: hub oci gc --registry R [--dry-run]

Garbage collection of a local or hybrid OCI registry, now: removes pushed blobs that no
manifest of their repository refers to and that are older than the registry's gc_grace_secs.
A repository with an upload in flight is passed over. Manifests are removed only when deleted
(DELETE /v2/<registry>/<repository>/manifests/<digest>). The registry also runs this on its own
every gc_interval_secs, on one replica at a time.

Options:
  --registry R       a local or hybrid oci registry's name from hub.toml (required)
  --dry-run          list what would be removed; remove nothing

Needs permission system:write. The run is an audit-log row (garbage_collect).

Example:
  hub oci gc --registry containers --dry-run

${connectionHelp('system:write')}`,
  options: { registry: { type: 'string' }, 'dry-run': { type: 'boolean' } },
  positionals: { min: 0, max: 1 },
  async run({ io, values, positionals, json, api, command }) {
    const registry = optionOrPositional(values, 'registry', positionals[0], command, { required: true })!;
    const dryRun = values['dry-run'] === true;
    const answer = (await api.call('POST', `/api/v1/admin/registries/${seg(registry)}/gc`, {
      body: { dry_run: dryRun },
    })) as { removed: { size: number }[]; skipped: string[] };
    if (json) return (printJson(io, answer), 0);
    const rows = rowsOf(answer, 'removed');
    if (rows.length)
      table(
        io,
        [
          { header: 'PACKAGE', keys: ['package_name'] },
          { header: 'SIZE', keys: ['size'] },
          { header: 'STORED', keys: ['stored_at'] },
          { header: 'KEY', keys: ['key'] },
        ],
        rows,
      );
    const bytes = answer.removed.reduce((n, r) => n + r.size, 0);
    io.out(
      `${dryRun ? 'would remove' : 'removed'} ${rows.length} blob(s), ${bytes} bytes${answer.skipped.length ? `; passed over (uploads in flight): ${answer.skipped.join(', ')}` : ''}\n`,
    );
    return 0;
  },
});

export const oci = commandGroup(
  'oci',
  `Usage: hub oci <sub-command> [options]

Hosted container registries (local and hybrid oci registries).

Sub-commands:
  gc --registry R [--dry-run]      remove pushed blobs no manifest refers to (system:write)`,
  { gc },
);
