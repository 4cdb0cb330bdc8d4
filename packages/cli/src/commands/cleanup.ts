/** cleanup: GET /api/v1/admin/cleanup/preview (--dry-run) or POST /api/v1/admin/cleanup/run. */
import { adminCommand, connectionHelp } from '../command.js';
import { positiveInt, str } from '../options.js';
import { printJson, rowsOf, table, type Row } from '../output.js';

export const cleanup = adminCommand({
  name: 'cleanup',
  routes: ['GET /api/v1/admin/cleanup/preview', 'POST /api/v1/admin/cleanup/run'],
  help: `Usage: hub cleanup [--dry-run] [--registry R] [--limit N]

Runs the registries' [[registries.cleanup]] rules now (they also run every
[cache] cleanup_interval_secs) and lists what was removed: one line per version with its
size and the rule that selected it, then the totals. With --dry-run nothing is removed: the
list is what a run would remove now. Pinned versions (gone upstream), held versions
(retention holds) and published versions (unless a rule says include_published) are never
removed. Each run is an audit-log row "cleanup_run" and a "cleanup_ran" event.

Options:
  --dry-run          only list what a run would remove (needs system:read)
  --registry R       only this registry (default: every registry with cleanup rules)
  --limit N          list at most N versions (default 1000); the totals count them all

A run needs permission system:write.

Examples:
  hub cleanup --dry-run --registry npm
  hub cleanup --json

${connectionHelp('system:write (system:read with --dry-run)', 'Exit status: 0 when the run (or the preview) succeeded, whatever it removed; 1 refused by\nthe server, server error or hub unreachable; 2 bad usage.')}`,
  options: { 'dry-run': { type: 'boolean' }, registry: { type: 'string' }, limit: { type: 'string' } },
  async run({ io, values, json, api, command }) {
    const registry = str(values, 'registry', command);
    const limit = positiveInt(str(values, 'limit', command), 'limit', command);
    const dryRun = values['dry-run'] === true;
    const answer = dryRun
      ? await api.call<Row>('GET', '/api/v1/admin/cleanup/preview', { query: { registry, limit } })
      : await api.call<Row>('POST', '/api/v1/admin/cleanup/run', { body: { registry, limit } });
    if (json) return (printJson(io, answer), 0);
    const items = rowsOf(answer, 'items');
    if (items.length > 0)
      table(
        io,
        [
          { header: 'REGISTRY', keys: ['registry'] },
          { header: 'PACKAGE', keys: ['package'] },
          { header: 'VERSION', keys: ['version'] },
          { header: 'BYTES', keys: ['bytes'] },
          { header: 'LAST_DOWNLOADED', keys: ['last_downloaded_at'] },
          { header: 'RULE', keys: ['rule_description'] },
        ],
        items,
      );
    const more = answer.truncated === true ? ` (${items.length} listed)` : '';
    io.out(
      `${dryRun ? 'would remove' : 'removed'} ${String(answer.versions)} version(s), ${String(answer.bytes)} bytes${more}\n`,
    );
    return 0;
  },
});
