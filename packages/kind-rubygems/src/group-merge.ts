/**
 * Group registries (decision 0053): the compact index and the specs files merged from the members' answers.
 *
 * - `/info/<gem>`: the first member's document as it is, then the lines of versions (tokens) it lacks from the
 *   next members. So when later members add nothing the bytes, and their MD5, are the first member's.
 * - `/versions`: every gem of every member. A gem one member lists keeps that member's lines; a gem several
 *   list gets one line with the union of their tokens, and the MD5 of the merged `/info/<gem>` (which bundler
 *   compares with its copy): the first member's MD5 when the others add no token, else that of the merged
 *   document read through `GroupAsk` (at most MAX_INFO_ASKS gems a merge; past that, or without `GroupAsk`, the
 *   first member's: bundler then fetches that `/info` again and checks it by its ETag).
 * - `/names`: the union, sorted.
 * - specs files (the legacy dependency API): `specs` and `prerelease_specs` the union of entries, first member
 *   first; `latest_specs` the highest version per gem and platform. A member's file too large to decode here
 *   leaves the first member's file served as it is.
 */
import zlib from 'node:zlib';
import { errors, type GroupAsk, type GroupMerge, type GroupPart, type RequestContext } from '@hub/contract';
import { checkCompactIndex, md5hex } from './compact-index.js';
import { indexReply } from './index-reply.js';
import { encode, type MValue } from './marshal.js';
import { decodeSpecs, entryOfItem } from './specs.js';
import { compareGemVersions } from './version.js';

/** Gems a `/versions` merge reads the merged `/info` of (each asks every member). */
export const MAX_INFO_ASKS = 256;
const ASKS_AT_ONCE = 8;

interface Doc {
  member: string;
  head: string;
  lines: string[];
  body: Buffer;
}

/** The text up to and including the `---` line, and the lines after it (empty ones dropped). */
function splitDoc(text: string): { head: string; lines: string[] } {
  const at = text.startsWith('---\n') ? 0 : text.indexOf('\n---\n') + 1;
  if (at === 0 && !text.startsWith('---\n')) return { head: '---\n', lines: text.split('\n').filter(Boolean) };
  return {
    head: text.slice(0, at + 4),
    lines: text
      .slice(at + 4)
      .split('\n')
      .filter(Boolean),
  };
}

function documents(rc: RequestContext, parts: readonly GroupPart[], what: string): Doc[] {
  const out: Doc[] = [];
  for (const p of parts) {
    const why = checkCompactIndex(p.body);
    if (why) rc.log.warn({ member: p.member, why }, `group merge: a member sent a malformed ${what}; left out`);
    else out.push({ member: p.member, body: p.body, ...splitDoc(p.body.toString('utf8')) });
  }
  if (out.length === 0) throw errors.upstream(`no member of the group sent a valid ${what}`);
  return out;
}

const firstWord = (line: string): string => line.split(' ', 1)[0]!;

/** `/info/<gem>`: the first member's bytes, then the lines of tokens it lacks from the others. */
export function mergeInfoBodies(rc: RequestContext, parts: readonly GroupPart[]): Buffer {
  const docs = documents(rc, parts, '/info document');
  const first = docs[0]!;
  const seen = new Set(first.lines.map(firstWord));
  const extra: string[] = [];
  for (const d of docs.slice(1))
    for (const line of d.lines) {
      const token = firstWord(line);
      if (seen.has(token)) continue;
      seen.add(token);
      extra.push(line);
    }
  if (extra.length === 0) return first.body;
  const sep = first.body.length === 0 || first.body[first.body.length - 1] === 0x0a ? '' : '\n';
  return Buffer.concat([first.body, Buffer.from(sep + extra.map((l) => `${l}\n`).join(''))]);
}

interface Gem {
  /** Each member's listed tokens, in member order (a `-token` takes a yanked one out). */
  members: Array<{ tokens: Set<string>; md5: string }>;
}

function listedTokens(lines: readonly string[]): Map<string, { tokens: Set<string>; md5: string }> {
  const gems = new Map<string, { tokens: Set<string>; md5: string }>();
  for (const line of lines) {
    const [name, list, md5] = line.split(' ');
    if (!name || list === undefined || md5 === undefined) continue;
    const g = gems.get(name) ?? { tokens: new Set<string>(), md5 };
    gems.set(name, g);
    for (const t of list.split(','))
      if (t.startsWith('-')) g.tokens.delete(t.slice(1));
      else if (t) g.tokens.add(t);
    g.md5 = md5;
  }
  return gems;
}

/** `/versions`; `ask` reads the merged `/info` of gems several members add tokens to. */
export async function mergeVersionsBodies(
  rc: RequestContext,
  parts: readonly GroupPart[],
  ask?: GroupAsk,
): Promise<Buffer> {
  const docs = documents(rc, parts, '/versions document');
  const perMember = docs.map((d) => listedTokens(d.lines));
  const gems = new Map<string, Gem>();
  for (const listed of perMember)
    for (const [name, g] of listed) (gems.get(name) ?? gems.set(name, { members: [] }).get(name)!).members.push(g);
  // Gems whose merged /info differs from the first member's: another member lists a token the first does not.
  const changed = [...gems]
    .filter(
      ([, g]) =>
        g.members.length > 1 && g.members.slice(1).some((m) => [...m.tokens].some((t) => !g.members[0]!.tokens.has(t))),
    )
    .map(([n]) => n);
  const md5s = new Map<string, string>();
  if (ask) {
    const asked = changed.slice(0, MAX_INFO_ASKS);
    if (changed.length > asked.length)
      rc.log.warn(
        { gems: changed.length },
        `group merge: more than ${MAX_INFO_ASKS} gems with merged /info files; the rest carry the first member's MD5`,
      );
    for (let i = 0; i < asked.length; i += ASKS_AT_ONCE)
      await Promise.all(
        asked.slice(i, i + ASKS_AT_ONCE).map(async (name) => {
          const infos = await ask(['info', name]).catch(() => []);
          if (infos.length) md5s.set(name, md5hex(infos.length === 1 ? infos[0]!.body : mergeInfoBodies(rc, infos)));
        }),
      );
  }
  const out: string[] = [];
  const done = new Set<string>();
  for (const d of docs) {
    for (const line of d.lines) {
      const name = firstWord(line);
      const g = gems.get(name);
      // A line of a gem another member lists too: one merged line, written where the gem first shows.
      if (!g || g.members.length === 1) {
        out.push(line);
        continue;
      }
      if (done.has(name)) continue;
      done.add(name);
      const tokens = new Set<string>();
      for (const m of g.members) for (const t of m.tokens) tokens.add(t);
      if (tokens.size) out.push(`${name} ${[...tokens].join(',')} ${md5s.get(name) ?? g.members[0]!.md5}`);
    }
  }
  return Buffer.from(docs[0]!.head + out.map((l) => `${l}\n`).join(''));
}

export function mergeNamesBodies(rc: RequestContext, parts: readonly GroupPart[]): Buffer {
  const docs = documents(rc, parts, '/names document');
  const names = new Set<string>();
  for (const d of docs) for (const l of d.lines) names.add(l.trim());
  return Buffer.from(
    docs[0]!.head +
      [...names]
        .sort()
        .map((n) => `${n}\n`)
        .join(''),
  );
}

/** A specs file merged; the first member's as it is when one cannot be decoded here (too large). */
export function mergeSpecsBodies(rc: RequestContext, parts: readonly GroupPart[], file: string): Buffer {
  const decoded: MValue[][] = [];
  for (const p of parts) {
    try {
      const items = decodeSpecs(p.body);
      if (!items) return parts[0]!.body;
      decoded.push(items);
    } catch (e) {
      rc.log.warn(
        { member: p.member, why: (e as Error).message },
        `group merge: a member sent a malformed ${file}; left out`,
      );
    }
  }
  if (decoded.length === 0) throw errors.upstream(`no member of the group sent a valid ${file}`);
  const byKey = new Map<string, MValue>();
  const latest = file === 'latest_specs.4.8.gz';
  for (const items of decoded)
    for (const item of items) {
      const e = entryOfItem(item);
      if (!e) continue;
      const dash = e.token.indexOf('-');
      const platform = dash === -1 ? 'ruby' : e.token.slice(dash + 1);
      const key = latest ? `${e.name} ${platform}` : `${e.name} ${e.token}`;
      const seen = byKey.get(key);
      if (!seen) byKey.set(key, item);
      else if (latest) {
        const had = entryOfItem(seen)!.token.split('-', 1)[0]!;
        if (compareGemVersions(e.token.split('-', 1)[0]!, had) > 0) byKey.set(key, item);
      }
    }
  return zlib.gzipSync(encode({ t: 'array', items: [...byKey.values()] }));
}

const ranged = { stale: false, ranges: true };

export const groupMerges: Record<string, GroupMerge> = {
  info: (rc, parts) => indexReply(rc, mergeInfoBodies(rc, parts), ranged),
  versions: async (rc, parts, _m, ask) => indexReply(rc, await mergeVersionsBodies(rc, parts, ask), ranged),
  names: (rc, parts) => indexReply(rc, mergeNamesBodies(rc, parts), ranged),
  specs: (rc, parts, m) =>
    indexReply(rc, mergeSpecsBodies(rc, parts, m.params!.file!), {
      stale: false,
      contentType: 'application/octet-stream',
    }),
};
