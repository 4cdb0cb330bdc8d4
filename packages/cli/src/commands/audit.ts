/** hub audit verify: the audit log's hash chains and signed checkpoints (GET /api/v1/admin/audit-log/verify; decision 0065). */
import { adminCommand, commandGroup, connectionHelp } from '../command.js';
import { str } from '../options.js';
import { cell, printJson } from '../output.js';
import { UsageError } from '../usage.js';
import type { AuditVerification } from '@hub/runtime';

const CHAIN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

const verify = adminCommand({
  name: 'audit verify',
  routes: ['GET /api/v1/admin/audit-log/verify'],
  help: `Usage: hub audit verify [--chain CHAIN]

Walks the audit log's hash chains (one per replica: its [audit_log] chain, "local" by default)
from the first row to the last: every row's hash recomputed from its fields, every link to the
row before, every seq following the last, every checkpoint's hash and (with
[audit_log] checkpoint_key_file) its Ed25519 signature. Prints OK with counts, or each problem,
the first broken link first: the row id, what was expected and what was found.
Exits 1 when anything is broken, 0 when every chain verifies.

Options:
  --chain CHAIN      verify this chain only (default: every chain)

Needs permission system:read.

Example:
  hub audit verify
  hub audit verify --chain replica-a --json

${connectionHelp('system:read')}`,
  options: { chain: { type: 'string' } },
  async run({ io, values, json, api, command }) {
    const chain = str(values, 'chain', command);
    if (chain !== undefined && !CHAIN.test(chain))
      throw new UsageError(`--chain: "${chain}" is not a chain name`, command);
    const v = await api.call<AuditVerification>('GET', '/api/v1/admin/audit-log/verify', { query: { chain } });
    if (json) printJson(io, v);
    else {
      if (v.chains.length === 0) io.out('no chained audit rows yet\n');
      for (const c of v.chains) {
        const span = c.first_seq === null ? 'no rows' : `seq ${c.first_seq}..${c.last_seq}`;
        const sigs =
          v.key_id === null
            ? 'signatures not checked: no checkpoint_key_file'
            : `${c.signed_checkpoints} signature(s) verified with key "${cell(v.key_id)}"`;
        io.out(
          `chain ${cell(c.chain)}: ${c.ok ? 'OK' : 'BROKEN'}, ${c.rows} row(s) (${span}), ${c.checkpoints} checkpoint(s), ${sigs}\n`,
        );
        for (const p of c.problems) {
          io.out(`  ${p.kind}: ${cell(p.message)}\n`);
          if (p.expected !== null || p.found !== null)
            io.out(`    expected ${cell(p.expected)}\n    found    ${cell(p.found)}\n`);
        }
        if (c.problems_total > c.problems.length)
          io.out(`  ... and ${c.problems_total - c.problems.length} more problem(s)\n`);
      }
      if (v.unchained_rows)
        io.out(`${v.unchained_rows} row(s) written before the chain existed are not covered by it\n`);
      if (!v.ok) io.err('the audit log does not verify\n');
    }
    return v.ok ? 0 : 1;
  },
});

export const audit = commandGroup(
  'audit',
  `Usage: hub audit verify [--chain CHAIN]

The audit log's tamper evidence (docs/security.md).

Sub-commands:
  verify [--chain CHAIN]   walk the hash chains and checkpoints; exit 1 at any broken link (system:read)

Run 'hub audit verify --help' for its options.`,
  { verify },
);
