import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { probeFetch, readCapped, zipEntryDigests, type DeclaredDigest, type DeclaredDigests } from '@hub/contract';
import { escapePath } from './module-path.js';
import { matchesPrefixPattern } from './nosumdb.js';
import { versionFileKey } from './publish.js';
import type { GoConfig } from './routes.js';

/** packages/audit/README.md: at most this many versions per package per sweep. */
const MAX_LOOKUPS = 25;
/** A lookup answer is a record of two lines and a signed tree note: well under this. */
const MAX_LOOKUP_BYTES = 64 * 1024;
/** go's own caps on a module (golang.org/x/mod/zip): 500 MiB zipped and unzipped, 16 MiB for go.mod. */
const MAX_ZIP_BYTES = 500 << 20;
const MAX_MOD_BYTES = 16 << 20;
const MAX_ZIP_ENTRIES = 100_000;

/**
 * go's `h1` (golang.org/x/mod/sumdb/dirhash Hash1): sha256 over the lines `<sha256 hex>  <name>\n` of the
 * files, sorted by name as bytes. Null for a name with a newline, which go refuses too.
 */
export function hash1(files: ReadonlyArray<{ name: string; sha256: string }>): string | null {
  if (files.some((f) => f.name.includes('\n'))) return null;
  const sorted = [...files].sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
  return createHash('sha256')
    .update(sorted.map((f) => `${f.sha256}  ${f.name}\n`).join(''))
    .digest('hex');
}

/** `h1` of a held .zip: over every file the module zip holds. */
const zipH1 = async (body: Readable): Promise<string | null> =>
  hash1(
    await zipEntryDigests(body, { maxBytes: MAX_ZIP_BYTES, maxEntries: MAX_ZIP_ENTRIES, maxEntryBytes: MAX_ZIP_BYTES }),
  );

/** `h1` of a held .mod: over one file named `go.mod`. */
const modH1 = async (body: Readable): Promise<string | null> =>
  hash1([
    {
      name: 'go.mod',
      sha256: createHash('sha256')
        .update(await readCapped(body, MAX_MOD_BYTES))
        .digest('hex'),
    },
  ]);

/** The `h1:` lines of a lookup record for `module@version`: the zip's and the go.mod's, as hex. */
export function parseLookup(text: string, module: string, version: string): { zip?: string; mod?: string } {
  const out: { zip?: string; mod?: string } = {};
  // The record ends at the blank line before the signed tree note.
  for (const line of text.split('\n\n')[0]!.split('\n')) {
    const m = /^(\S+) (\S+) h1:([A-Za-z0-9+/]{43}=)$/.exec(line.trim());
    if (!m || m[1] !== module) continue;
    const hex = Buffer.from(m[3]!, 'base64').toString('hex');
    if (m[2] === version) out.zip = hex;
    else if (m[2] === `${version}/go.mod`) out.mod = hex;
  }
  return out;
}

/**
 * Content drift: the `h1` hashes the configured checksum database (`checksum_db`, which hub also passes
 * through to clients) records for each held version's .zip and .mod, from `/lookup/<module>@<version>`.
 * Without `checksum_db` nothing is compared: the GOPROXY protocol itself declares no digest. Modules
 * matching `checksum_db_exclude` are never looked up. A failed or unreadable lookup (a module the database
 * does not know: 404/410) declares nothing.
 */
export const declaredDigests: DeclaredDigests<GoConfig> = async (pc, module, versions, held) => {
  const base = pc.registry.config.checksum_db;
  // A private module's path is not the checksum database's business (go's own GONOSUMDB).
  if (!base || matchesPrefixPattern(pc.registry.config.checksum_db_exclude ?? [], module)) return [];
  const out: DeclaredDigest[] = [];
  for (const version of versions.slice(0, MAX_LOOKUPS)) {
    const keys = held.get(version) ?? [];
    const zip = versionFileKey(module, version, 'zip');
    const mod = versionFileKey(module, version, 'mod');
    if (!keys.includes(zip) && !keys.includes(mod)) continue;
    const res = await probeFetch(pc.upstream, `${base}/lookup/${escapePath(module)}@${escapePath(version)}`, {
      maxBytes: MAX_LOOKUP_BYTES,
    });
    if (res.status !== 200) continue;
    const sums = parseLookup(res.body.toString('utf8'), module, version);
    if (sums.zip && keys.includes(zip))
      out.push({ version, algorithm: 'h1', hex: sums.zip, key: zip, heldDigest: zipH1 });
    if (sums.mod && keys.includes(mod))
      out.push({ version, algorithm: 'h1', hex: sums.mod, key: mod, heldDigest: modH1 });
  }
  return out;
};
