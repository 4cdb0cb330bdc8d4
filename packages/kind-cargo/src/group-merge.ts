/**
 * Group registries (decision 0053): a crate's sparse index file merged from the members' files. A version
 * (`vers`) counts once, from the first member that lists it, its line kept byte for byte (so its `cksum` is
 * that member's, the member a download of it comes from); a member that marks it yanked (hub marks an unlisted
 * version so) gives way to a later member that does not. The lines are ordered by version. `config.json` is
 * not merged: every member renders it with the group's URL, so the first member's answer is the group's.
 */
import { createHash } from 'node:crypto';
import semver from 'semver';
import { errors, type GroupMerge, type GroupPart, type Reply, type RequestContext } from '@hub/contract';
import { parseIndexFile } from './index-file.js';

/** Semver order; a version semver cannot read (none should be in an index) sorts after, by text. */
function compareVers(a: string, b: string): number {
  const x = semver.valid(a);
  const y = semver.valid(b);
  if (x && y) return semver.compareBuild(x, y);
  if (x || y) return x ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

const entryOf = (line: string): { vers: string; yanked: boolean } | null => {
  try {
    const e = JSON.parse(line) as { vers?: unknown; yanked?: unknown };
    return typeof e.vers === 'string' ? { vers: e.vers, yanked: e.yanked === true } : null;
  } catch {
    return null;
  }
};

export function mergeIndexFiles(rc: RequestContext, name: string, parts: readonly GroupPart[]): Buffer {
  const lines = new Map<string, { line: string; yanked: boolean }>();
  let valid = 0;
  for (const p of parts) {
    const parsed = parseIndexFile(p.body, name);
    if (typeof parsed === 'string') {
      rc.log.warn({ member: p.member, why: parsed }, 'group merge: a member sent a malformed index file; left out');
      continue;
    }
    valid++;
    for (const line of p.body.toString('utf8').split('\n')) {
      const e = line.trim() ? entryOf(line) : null;
      if (!e) continue;
      // A version yanked (or unlisted) in an earlier member, that a later one lists, is offered from the later one.
      const had = lines.get(e.vers);
      if (!had || (had.yanked && !e.yanked)) lines.set(e.vers, { line, yanked: e.yanked });
    }
  }
  if (valid === 0) throw errors.upstream(`no member of the group sent a valid index file for ${name}`);
  return Buffer.from(
    [...lines.entries()]
      .sort(([a], [b]) => compareVers(a, b))
      .map(([, l]) => `${l.line}\n`)
      .join(''),
  );
}

export const mergeIndex: GroupMerge = (rc, parts, match): Reply => {
  const body = mergeIndexFiles(rc, match.coordinate!.name, parts);
  const etag = `"${createHash('sha256').update(body).digest('hex')}"`;
  return {
    status: 200,
    headers: { 'content-type': 'text/plain; charset=utf-8', etag, 'cache-control': 'no-cache' },
    body,
  };
};
