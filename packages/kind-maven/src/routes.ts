import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  errors,
  isHubError,
  reply,
  type Digest,
  type KindRoute,
  type MetadataSpec,
  type Reply,
  type RequestContext,
} from '@hub/contract';
import { parseRequest, type MavenRequest } from './layout.js';
import { checkMetadata, checksumOf, listedVersions, rewriteMetadata } from './metadata.js';
import { generateMetadata, lastUpdatedOf, upstreamLastUpdated } from './local-metadata.js';
import { CONTENT_TYPES, deleteRoute, publishRoute, ZIP_EXTS } from './publish.js';
import { coolDown, coolDownTime, tooNew } from './cooldown.js';
import { checkChecksumHead, checkNotHtml, checkPomHead, checkSignatureHead } from './checks.js';

type FileRequest = Extract<MavenRequest, { type: 'file' }>;
type MetadataRequest = Extract<MavenRequest, { type: 'metadata' }>;

const TEXT = 'text/plain; charset=utf-8';

const upstreamUrl = (rc: Pick<RequestContext, 'registry'>, path: string) =>
  `${rc.registry.upstream}/${path.split('/').map(encodeURIComponent).join('/')}`;

/** maven-metadata.xml at `path`; an artifact's (`packageName` given) is kept when the upstream removes the artifact. */
export const metadataSpec = (
  rc: Pick<RequestContext, 'registry'>,
  path: string,
  packageName?: string,
): MetadataSpec => ({
  key: `metadata:${path}`,
  url: upstreamUrl(rc, path),
  check: checkMetadata,
  ...(packageName !== undefined ? { packageName } : {}),
});

async function readSmall(body: Reply['body'], max: number): Promise<string> {
  if (body === null) return '';
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body.toString().slice(0, max);
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of body as Readable) {
    chunks.push(c as Buffer);
    n += (c as Buffer).length;
    if (n >= max) {
      (body as Readable).destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('latin1');
}

/** One immutable file of a version folder, cached as an artifact. */
function artifact(
  rc: RequestContext,
  r: FileRequest,
  checks: { format?: 'zip'; checkHead?: (h: Buffer) => string | null },
  contentType: string,
  digest?: () => Promise<Digest | undefined>,
): Promise<Reply> {
  return rc.artifact({
    key: r.path,
    coordinate: r.coordinate,
    contentType,
    ...checks,
    source: async () => {
      const publishedAt = await coolDownTime(rc, r.coordinate.name, r.coordinate.version);
      return { url: upstreamUrl(rc, r.path), digest: await digest?.(), publishedAt };
    },
  });
}

/**
 * The upstream's `.sha1` of a primary file, cached as an artifact of its own (the client asks for it next).
 * Only a 404 means "none published": then the file is cached on its structural checks alone. Any other
 * failure refuses the file rather than caching it unverified.
 */
async function upstreamSha1(rc: RequestContext, r: FileRequest): Promise<Digest | undefined> {
  const sha1: FileRequest = { ...r, path: `${r.path}.sha1`, role: 'checksum', checksum: 'sha1' };
  let text: string;
  try {
    const res = await artifact(rc, sha1, { checkHead: checkChecksumHead('sha1') }, TEXT);
    text = await readSmall(res.body, 4096);
  } catch (e) {
    if (isHubError(e) && e.code === 'not_found') return undefined;
    // The cool-down refused the checksum, as it refuses the file.
    if (isHubError(e) && e.code === 'package_blocked') throw e;
    throw errors.upstream(`could not read the upstream checksum of ${r.path}: ${(e as Error).message}`);
  }
  const hex = /^\s*([0-9a-fA-F]{40})(?:\s|$)/.exec(text)?.[1];
  if (!hex) throw errors.upstream(`the upstream checksum of ${r.path} is malformed`);
  return { algorithm: 'sha1', hex: hex.toLowerCase(), fromKey: sha1.path };
}

/** A non-unique SNAPSHOT file changes in place upstream: streamed through, never cached. */
async function mutableFile(rc: RequestContext, r: FileRequest): Promise<Reply> {
  // Under a cool-down this refuses: a SNAPSHOT is never dated.
  await coolDownTime(rc, r.coordinate.name, r.coordinate.version);
  const res = await rc.passthrough(upstreamUrl(rc, r.path));
  if (res.status === 200) return { ...res, headers: { ...res.headers, 'cache-control': 'no-cache' } };
  (res.body as Readable | null)?.destroy?.();
  if (res.status === 404 || res.status === 410) throw errors.notFound(`${r.path} is not in the upstream`);
  throw errors.upstream(`upstream answered ${res.status} for ${r.path}`);
}

function file(rc: RequestContext, r: FileRequest): Promise<Reply> {
  if (r.mutable) return mutableFile(rc, r);
  if (r.role === 'checksum') return artifact(rc, r, { checkHead: checkChecksumHead(r.checksum!) }, TEXT);
  if (r.role === 'signature') return artifact(rc, r, { checkHead: checkSignatureHead }, 'application/pgp-signature');
  const checks = ZIP_EXTS.has(r.ext)
    ? { format: 'zip' as const }
    : { checkHead: r.ext === 'pom' ? checkPomHead : checkNotHtml };
  return artifact(rc, r, checks, CONTENT_TYPES[r.ext] ?? 'application/octet-stream', () => upstreamSha1(rc, r));
}

/**
 * maven-metadata.xml and its checksums. The document is mutable (registry TTL); unlisted versions are
 * dropped from it, so its checksum files are computed here over exactly the bytes served.
 */
async function metadata(rc: RequestContext, r: MetadataRequest): Promise<Reply> {
  if (r.signature)
    throw errors.notFound('hub serves no signature for maven-metadata.xml (it may rewrite the document)');
  if (rc.registry.mode !== 'proxy') {
    const published = await publishedMetadata(rc, r);
    if (published) return published;
  }
  const doc = await rc.metadata(metadataSpec(rc, r.path, r.coordinate.version ? undefined : r.coordinate.name));
  // Version-level (SNAPSHOT) metadata describes one version, which stays downloadable when unlisted.
  const hidden = new Set<string>(r.coordinate.version ? [] : await rc.hiddenVersions(r.coordinate.name));
  // A kept document (the upstream removed the artifact) offers only the versions hub holds.
  if (doc.kept)
    for (const v of doc.derive('listed', (b) => listedVersions(b.toString('utf8'))))
      if (!doc.kept.heldVersions.has(v)) hidden.add(v);
  // The cool-down: too-new versions leave the listing too, and `<latest>`/`<release>` move back.
  if (!r.coordinate.version && coolDown(rc) > 0) {
    const upstream = doc.derive('listed', (b) => listedVersions(b.toString('utf8')));
    for (const v of await tooNew(
      rc,
      r.coordinate.name,
      upstream.filter((v) => !hidden.has(v)),
    ))
      hidden.add(v);
  }
  const tag = `served:${[...hidden].sort().join('\n')}`;
  const served = doc.derive(tag, (b) => rewriteMetadata(b, hidden));
  const headers: Record<string, string> = { 'cache-control': 'no-cache' };
  if (doc.stale) headers['x-hub-stale'] = '1';
  if (r.checksum)
    return reply.bytes(
      doc.derive(`${tag}:${r.checksum}`, () => checksumOf(served, r.checksum!)),
      TEXT,
      headers,
    );
  return reply.bytes(served, 'application/xml', headers);
}

/**
 * Local and hybrid registries: maven-metadata.xml generated from the versions published here. A name
 * published here (local_only, the default) never asks the upstream; a hybrid name the upstream may serve
 * merges the upstream's versions with the local ones. Null: nothing published, the upstream answers alone.
 */
async function publishedMetadata(rc: RequestContext, r: MetadataRequest): Promise<Reply | null> {
  const name = r.coordinate.name;
  const owned = rc.registry.mode === 'local' || (await rc.local.ownsName(name));
  // hub takes no SNAPSHOT deploys, so a published name has no version-level metadata.
  if (r.coordinate.version) {
    if (owned)
      throw errors.notFound(`${name}:${r.coordinate.version} is not published here (hub takes no SNAPSHOT deploys)`);
    return null;
  }
  const local = await rc.local.versions(name);
  if (!owned && local.length === 0) return null;
  let upstream: string[] = [];
  let upstreamUpdated: string | null = null;
  if (!owned) {
    try {
      const doc = await rc.metadata(metadataSpec(rc, r.path, name));
      const xml = doc.body.toString('utf8');
      upstream = listedVersions(xml);
      upstreamUpdated = upstreamLastUpdated(xml);
    } catch (e) {
      if (!(isHubError(e) && e.code === 'not_found')) throw e;
    }
  }
  const hidden = new Set(await rc.hiddenVersions(name));
  for (const v of await tooNew(
    rc,
    name,
    upstream.filter((v) => !hidden.has(v)),
  ))
    hidden.add(v);
  // Maven has no yank: a version yanked here (by an operator) leaves the listing as an unlisted one does.
  const versions = [...upstream, ...local.filter((v) => !v.yanked).map((v) => v.version)].filter((v) => !hidden.has(v));
  if (local.length === 0 || versions.length === 0) throw errors.notFound(`no version of ${name} is published here`);
  const newest = lastUpdatedOf(new Date(Math.max(...local.map((v) => v.publishedAt.getTime()))));
  const [group, artifact] = name.split(':') as [string, string];
  const body = generateMetadata({
    group,
    artifact,
    versions,
    lastUpdated: upstreamUpdated && upstreamUpdated > newest ? upstreamUpdated : newest,
  });
  const served = r.checksum ? Buffer.from(checksumOf(body, r.checksum)) : body;
  const etag = `"${crypto.createHash('sha256').update(served).digest('hex').slice(0, 32)}"`;
  return reply.bytes(served, r.checksum ? TEXT : 'application/xml', { 'cache-control': 'no-cache', etag });
}

/** The parsed request travels from match() to handle() in the match's params. */
const mavenRoute = (id: string, accepts: (r: MavenRequest) => boolean): KindRoute => ({
  id,
  match(s) {
    const r = parseRequest(s);
    return r && accepts(r) ? { coordinate: r.coordinate, params: { request: JSON.stringify(r) } } : null;
  },
  handle(rc, m) {
    const r = JSON.parse(m.params!.request!) as MavenRequest;
    return r.type === 'metadata' ? metadata(rc, r) : file(rc, r);
  },
});

export const routes: readonly KindRoute[] = [
  // First: a PUT of a file outside its folder is a 400 here, not the 404 a GET gets.
  publishRoute,
  deleteRoute,
  mavenRoute('metadata', (r) => r.type === 'metadata'),
  mavenRoute('checksum', (r) => r.type === 'file' && r.role !== 'primary'),
  mavenRoute('file', (r) => r.type === 'file' && r.role === 'primary'),
];
