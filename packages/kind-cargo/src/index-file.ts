import { createHash } from 'node:crypto';
import { errors, type MetadataDoc, type MetadataSpec, type RequestContext } from '@hub/contract';
import { canonicalName, indexPath } from './names.js';

/** One version of a crate: a line of its sparse index file (only the members hub reads). */
export interface IndexEntry {
  name: string;
  vers: string;
  cksum?: string;
  yanked?: boolean;
  /** When the version was published (RFC 3339); newer registries write it, older lines lack it. */
  pubtime?: string;
}

const SHA256 = /^[0-9a-f]{64}$/;

function parseLine(line: string): IndexEntry | null {
  try {
    const v = JSON.parse(line) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
    const e = v as Record<string, unknown>;
    return typeof e.name === 'string' && typeof e.vers === 'string' ? (e as unknown as IndexEntry) : null;
  } catch {
    return null;
  }
}

const lines = (body: Buffer): string[] => body.toString('utf8').split('\n');

/**
 * Parses an index file; the reason it is not one (an HTML error page, a line that is not a version
 * of this crate, no line at all: a registry removes the file of a crate with no version) otherwise.
 * Blank lines are allowed, as cargo allows them.
 */
export function parseIndexFile(body: Buffer, name: string): IndexEntry[] | string {
  const out: IndexEntry[] = [];
  for (const line of lines(body)) {
    if (!line.trim()) continue;
    const e = parseLine(line);
    if (!e) return /^\s*</.test(line) ? 'looks like an HTML page' : 'a line is not an index entry';
    if (canonicalName(e.name) !== name) return `a line names crate "${e.name.slice(0, 64)}"`;
    out.push(e);
  }
  return out.length ? out : 'no index entry';
}

export function indexSpec(rc: Pick<RequestContext, 'registry'>, name: string): MetadataSpec {
  return {
    key: `index:${name}`,
    url: `${rc.registry.upstream}/${indexPath(name)}`,
    packageName: name,
    check(body, contentType) {
      if (contentType && /^text\/html\b/i.test(contentType)) return 'an HTML page';
      const parsed = parseIndexFile(body, name);
      return typeof parsed === 'string' ? parsed : null;
    },
  };
}

export const entries = (doc: MetadataDoc, name: string): IndexEntry[] =>
  doc.derive(`entries:${name}`, (b) => {
    const parsed = parseIndexFile(b, name);
    return typeof parsed === 'string' ? [] : parsed;
  });

const timeOf = (e: IndexEntry): number => (typeof e.pubtime === 'string' ? Date.parse(e.pubtime) : NaN);

/**
 * The latest a version can have been published, for the cool-down: its own `pubtime`, else the earliest
 * `pubtime` of a line after it. An index file only grows by appending a line per publish, so a line was
 * published before every line below it (the public crate registry began writing `pubtime` in 2025; older lines have none).
 * null when neither says: such a version cannot be proven old enough.
 */
export function publishBound(list: readonly IndexEntry[], version: string): Date | null {
  const at = list.findIndex((e) => e.vers === version);
  if (at < 0) return null;
  let bound = timeOf(list[at]!);
  for (let i = at + 1; i < list.length && !Number.isFinite(bound); i++) bound = timeOf(list[i]!);
  // The first later line with a time gives the bound; any later one is after it (append order).
  return Number.isFinite(bound) ? new Date(bound) : null;
}

/** Versions of an index file that cannot be proven published at least `minAgeSecs` ago (the cool-down). */
export function tooNew(list: readonly IndexEntry[], minAgeSecs: number, now = Date.now()): Set<string> {
  const out = new Set<string>();
  let bound = NaN;
  // From the last line up: `bound` is the publishBound of the line being looked at.
  for (let i = list.length - 1; i >= 0; i--) {
    const own = timeOf(list[i]!);
    if (Number.isFinite(own)) bound = own;
    if (!Number.isFinite(bound) || now - bound < minAgeSecs * 1000) out.add(list[i]!.vers);
  }
  return out;
}

/** The index line of one version, with the sha256 the downloaded .crate must have. */
export async function versionEntry(
  rc: RequestContext,
  name: string,
  version: string,
): Promise<IndexEntry & { cksum: string }> {
  const e = entries(await rc.metadata(indexSpec(rc, name)), name).find((x) => x.vers === version);
  if (!e) throw errors.notFound(`${name} ${version} is not in the upstream index`);
  if (typeof e.cksum !== 'string' || !SHA256.test(e.cksum))
    throw errors.upstream(`the upstream index line of ${name} ${version} has no valid cksum`);
  return e as IndexEntry & { cksum: string };
}

/**
 * The index file as hub serves it: an unlisted version stays (a Cargo.lock may pin it) but is
 * marked `"yanked": true`, so cargo no longer picks it for a new resolution. Other lines pass
 * through byte for byte; `dropped` ones (too new for the cool-down) are left out.
 */
export function servedIndex(
  doc: MetadataDoc,
  hidden: ReadonlySet<string>,
  dropped: ReadonlySet<string> = new Set(),
): { body: Buffer; etag: string } {
  if (hidden.size === 0 && dropped.size === 0) return { body: doc.body, etag: doc.etag };
  return doc.derive(`served:${[...hidden].sort().join('\n')}\0${[...dropped].sort().join('\n')}`, (b) => {
    const out = lines(b).flatMap((line) => {
      const e = line.trim() ? parseLine(line) : null;
      if (e && dropped.has(e.vers)) return [];
      if (!e || !hidden.has(e.vers) || e.yanked === true) return [line];
      return [JSON.stringify({ ...e, yanked: true })];
    });
    const body = Buffer.from(out.join('\n'));
    return { body, etag: `"${createHash('sha256').update(body).digest('hex')}"` };
  });
}

/** A version published here, as its index line is served: `yanked` when yanked here or unlisted. */
export interface LocalLine {
  vers: string;
  line: Record<string, unknown>;
  yanked: boolean;
}

/**
 * The index file of a crate with versions published here (local and hybrid registries): their lines,
 * made from the database, after the upstream's lines (`upstream`, null when not asked or absent) for
 * versions not published here. A local version wins over an upstream line with the same number.
 * Unlisted versions are marked yanked, upstream and local alike; `dropped` upstream ones (too new for the cool-down) are left out.
 */
export function mergedIndex(
  local: readonly LocalLine[],
  upstream: Buffer | null,
  hidden: ReadonlySet<string>,
  dropped: ReadonlySet<string> = new Set(),
): { body: Buffer; etag: string } {
  const mine = new Set(local.map((l) => l.vers));
  const out: string[] = [];
  if (upstream) {
    for (const raw of lines(upstream)) {
      const e = raw.trim() ? parseLine(raw) : null;
      if (!e || mine.has(e.vers) || dropped.has(e.vers)) continue;
      out.push(hidden.has(e.vers) && e.yanked !== true ? JSON.stringify({ ...e, yanked: true }) : raw);
    }
  }
  for (const l of local) {
    // `yanked` where the public crate registry writes it: after the features, before links.
    const { links, ...rest } = l.line;
    out.push(JSON.stringify({ ...rest, yanked: l.yanked || hidden.has(l.vers), links: links ?? null }));
  }
  const body = Buffer.from(out.map((l) => `${l}\n`).join(''));
  return { body, etag: `"${createHash('sha256').update(body).digest('hex')}"` };
}
