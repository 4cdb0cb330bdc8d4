/**
 * Group registries (decision 0053): maven-metadata.xml merged from the members' answers. An artifact-level
 * document lists every version any member lists (a version counts once, whichever member lists it first),
 * with `<latest>` and `<release>` chosen again by Maven's version order and the latest `<lastUpdated>`; a
 * version-level (SNAPSHOT) document describes one member's build, so the first member's is served. The
 * checksum files of the document are computed over exactly the merged bytes.
 */
import {
  errors,
  reply,
  type GroupAsk,
  type GroupMerge,
  type GroupPart,
  type RequestContext,
  type RouteMatch,
} from '@hub/contract';
import type { MavenRequest } from './layout.js';
import { checkMetadata, checksumOf, listedVersions } from './metadata.js';
import { generateMetadata, lastUpdatedOf, upstreamLastUpdated } from './local-metadata.js';

type MetadataRequest = Extract<MavenRequest, { type: 'metadata' }>;

/** The members' documents that are maven-metadata.xml; the others are logged and left out. */
function documents(
  rc: RequestContext,
  parts: readonly GroupPart[],
): Array<{ member: string; xml: string; body: Buffer }> {
  const out: Array<{ member: string; xml: string; body: Buffer }> = [];
  for (const p of parts) {
    const why = checkMetadata(p.body);
    if (why) {
      rc.log.warn({ member: p.member, why }, 'group merge: a member sent a malformed maven-metadata.xml; left out');
      continue;
    }
    out.push({ member: p.member, xml: p.body.toString('utf8'), body: p.body });
  }
  return out;
}

/** The merged document for `r` from the members' answers (each a maven-metadata.xml). */
export function mergeMetadataBodies(rc: RequestContext, r: MetadataRequest, parts: readonly GroupPart[]): Buffer {
  const docs = documents(rc, parts);
  if (docs.length === 0) throw errors.upstream('no member of the group sent a valid maven-metadata.xml');
  // Version-level metadata names one member's SNAPSHOT build files: mixing two members' would name files neither has.
  if (r.coordinate.version) return docs[0]!.body;
  const versions = new Set<string>();
  let lastUpdated = '';
  for (const d of docs) {
    for (const v of listedVersions(d.xml)) versions.add(v);
    const at = upstreamLastUpdated(d.xml);
    if (at && at > lastUpdated) lastUpdated = at;
  }
  const [group, artifact] = r.coordinate.name.split(':') as [string, string];
  return generateMetadata({
    group,
    artifact,
    versions: [...versions],
    lastUpdated: lastUpdated || lastUpdatedOf(new Date()),
  });
}

/** `maven-metadata.xml` below `maven2/`, as a route sees the segments. */
const documentSegments = (r: MetadataRequest): string[] => ['maven2', ...r.path.split('/')];

export const mergeMetadata: GroupMerge = async (rc, parts, match: RouteMatch, ask?: GroupAsk) => {
  const r = JSON.parse(match.params!.request!) as MetadataRequest;
  if (r.signature) throw errors.notFound('hub serves no signature for a merged maven-metadata.xml');
  const headers = { 'cache-control': 'no-cache' };
  if (!r.checksum) return reply.bytes(mergeMetadataBodies(rc, r, parts), 'application/xml', headers);
  // The parts are the members' checksums of their own documents: the group's is over the merged bytes.
  if (!ask) throw errors.notFound('this hub cannot compute the checksum of a merged maven-metadata.xml');
  const docs = await ask(documentSegments(r));
  if (docs.length === 0) throw errors.notFound(`no member of the group has ${r.path}`);
  const merged = docs.length === 1 ? docs[0]!.body : mergeMetadataBodies(rc, r, docs);
  return reply.bytes(checksumOf(merged, r.checksum), 'text/plain; charset=utf-8', headers);
};
