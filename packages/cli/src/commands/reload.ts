/** reload: POST /api/v1/admin/config/reload. Exit 1 unless every replica applied the new configuration. */
import { adminCommand, connectionHelp } from '../command.js';
import { printJson } from '../output.js';

interface ReplicaReload {
  id: string;
  result: 'applied' | 'refused' | 'unreachable';
  changed_keys: string[];
  error: string | null;
}

export const reload = adminCommand({
  name: 'reload',
  routes: ['POST /api/v1/admin/config/reload'],
  help: `Usage: hub reload [--local]

Makes a running hub re-read its hub.toml (the file it was started with), as SIGHUP does. The new
file is checked completely first; a file with an error, or one that changes a key that needs a
restart (listen address, TLS, database, storage...), is refused with the key (and its line), and the
configuration in force keeps serving. Registries (added, removed, changed), policies, anonymous
grants, rate limits, upstream network settings, the log level and flag sources change at once;
requests already running finish with what they started with. Each reload is an audit-log row
(action config_reload, the changed keys with secrets masked) and a config_reloaded event.

With replicas sharing a database, every live replica re-reads its own hub.toml and each one's
result is printed: applied, refused (with why) or unreachable.

Options:
  --local            reload only the replica that answers this call

Needs permission system:write.

Examples:
  hub reload
  hub reload --json | jq '.replicas[] | select(.result != "applied")'

${connectionHelp(
  'system:write',
  `Exit status: 0 every replica applied it; 1 a replica refused it or was unreachable, the request was
refused or failed, or the hub is unreachable; 2 bad usage.`,
)}`,
  options: { local: { type: 'boolean' } },
  async run({ io, values, json, api }) {
    const answer = await api.call<{ replicas: ReplicaReload[] }>('POST', '/api/v1/admin/config/reload', {
      query: values.local ? { local: 'true' } : {},
    });
    if (json) printJson(io, answer);
    else
      for (const r of answer.replicas) {
        const keys = r.changed_keys.length ? r.changed_keys.join(', ') : 'no key changed';
        if (r.result === 'applied') io.out(`${r.id}: applied (${keys})\n`);
        else io.out(`${r.id}: ${r.result}: ${r.error ?? ''}\n`);
      }
    return answer.replicas.every((r) => r.result === 'applied') ? 0 : 1;
  },
});
