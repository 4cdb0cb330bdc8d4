/**
 * Group registries (decision 0053): a crate's sparse index file merged from the members' files. A version
 * (`vers`) counts once, from the first member that lists it, its line kept byte for byte (so its `cksum` is
 * that member's, the member a download of it comes from); the lines are ordered by version. `config.json` is
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

const versOf = (line: string): string | null => {
  try {
    const v = (JSON.parse(line) as { vers?: unknown }).vers;
    return typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
};

export function mergeIndexFiles(rc: RequestContext, name: string, parts: readonly GroupPart[]): Buffer {
  const lines = new Map<string, string>();
  let valid = 0;
  for (const p of parts) {
    const parsed = parseIndexFile(p.body, name);
    if (typeof parsed === 'string') {
      rc.log.warn({ member: p.member, why: parsed }, 'group merge: a member sent a malformed index file; left out');
      continue;
    }
    valid++;
    for (const line of p.body.toString('utf8').split('\n')) {
      const vers = line.trim() ? versOf(line) : null;
      if (vers !== null && !lines.has(vers)) lines.set(vers, line);
    }
  }
  if (valid === 0) throw errors.upstream(`no member of the group sent a valid index file for ${name}`);
  return Buffer.from([...lines.entries()].sort(([a], [b]) => compareVers(a, b)).map(([, l]) => `${l}\n`).join(''));
}

export const mergeIndex: GroupMerge = (rc, parts, match): Reply => {
  const body = mergeIndexFiles(rc, match.coordinate!.name, parts);
  const etag = `"${createHash('sha256').update(body).digest('hex')}"`;
  return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8', etag, 'cache-control': 'no-cache' }, body };
};
