/**
 * requirements.txt as `pip-compile --generate-hashes` (or `uv pip compile`) writes it: `name==version` with
 * `--hash=sha256:<hex>` options, continued over lines with `\`. Only pinned (`==`) requirements are read;
 * option lines (`-r`, `--index-url`, ...) are skipped, and an unpinned requirement is refused.
 */
import { prefixedHex } from '../digest.js';
import { EntryList, LockfileError, linesOf, type LockEntry, type ParseLimits } from '../entry.js';

const PIN = /^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*===?\s*([^\s;,]+)\s*(?:;.*)?$/;

export function parseRequirements(text: string, limits: ParseLimits): LockEntry[] {
  const logical: Array<{ line: number; text: string }> = [];
  let pending: { line: number; text: string } | null = null;
  for (const [i, raw] of linesOf(text).entries()) {
    const body = raw.replace(/(^|\s)#.*$/, '');
    const cont = /\\\s*$/.test(body);
    const part = body.replace(/\\\s*$/, ' ');
    pending = pending ? { line: pending.line, text: pending.text + part } : { line: i + 1, text: part };
    if (pending.text.length > 1_048_576)
      throw new LockfileError(`requirements line ${pending.line}: a continued line longer than 1 MiB`);
    if (!cont) {
      logical.push(pending);
      pending = null;
    }
  }
  if (pending) logical.push(pending);
  const out = new EntryList(limits);
  for (const { line, text: l } of logical) {
    const words = l.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0 || words[0]!.startsWith('-')) continue;
    const hashes = words.filter((w) => w.startsWith('--hash=')).map((w) => w.slice('--hash='.length));
    const req = words.filter((w) => !w.startsWith('--')).join(' ');
    const m = PIN.exec(req);
    if (!m) throw new LockfileError(`requirements line ${line}: "${req.slice(0, 80)}" is not pinned with ==`);
    out.add({ ecosystem: 'pypi', name: m[1]!, version: m[2]!, digests: hashes.flatMap((h) => prefixedHex(h) ?? []) });
  }
  return out.entries;
}
