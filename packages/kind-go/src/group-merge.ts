/**
 * Group registries (decision 0053): `@v/list` merged from the members' lists, each version once, in Go's
 * semver order. `@latest` and the version files are not merged: they come from the first member that has them.
 */
import { errors, reply, type GroupMerge, type GroupPart, type RequestContext } from '@hub/contract';
import { isGoVersion } from './module-path.js';
import { compareGoVersions } from './semver.js';

export function mergeVersionLists(rc: RequestContext, parts: readonly GroupPart[]): string[] {
  const versions = new Set<string>();
  let valid = 0;
  for (const p of parts) {
    const text = p.body.toString('utf8');
    if (/^\s*</.test(text)) {
      rc.log.warn({ member: p.member }, 'group merge: a member sent an HTML page for a version list; left out');
      continue;
    }
    valid++;
    // go reads the first field of each line; anything that is not a version is left out.
    for (const line of text.split('\n')) {
      const v = line.trim().split(/\s+/, 1)[0]!;
      if (v && isGoVersion(v)) versions.add(v);
    }
  }
  if (valid === 0) throw errors.upstream('no member of the group sent a valid version list');
  return [...versions].sort(compareGoVersions);
}

export const mergeList: GroupMerge = (rc, parts) => {
  const versions = mergeVersionLists(rc, parts);
  return reply.bytes(versions.length ? `${versions.join('\n')}\n` : '', 'text/plain; charset=utf-8');
};
