import crypto from 'node:crypto';
import { pipeline, Transform, type Readable } from 'node:stream';
import {
  errors,
  isHubError,
  reply,
  type Digest,
  type KindRoute,
  type RequestContext,
  type RouteMatch,
} from '@hub/contract';
import { checkChecksumHead } from './checks.js';
import { CHECKSUMS, isSnapshot, parseRequest, type ChecksumAlgorithm, type MavenRequest } from './layout.js';
import { checkDocument, walk } from './xml.js';

/**
 * `mvn deploy` to a `distributionManagement` repository (local and hybrid registries): PUT of each file,
 * then of its checksum files, then of maven-metadata.xml and its checksums.
 *  - A file is stored once (a second PUT of its path is 409); hub stores its `.sha1`, `.md5`, `.sha256` and
 *    `.sha512` itself from the bytes received, so a checksum the client PUTs is only compared with them (400
 *    when it differs) and every checksum GET works.
 *  - The version is recorded when its POM arrives: a POM whose groupId/artifactId/version disagree with its
 *    path, or that has no groupId (nor a parent's), is 400.
 *  - maven-metadata.xml PUTs are accepted and dropped: hub generates it from the database.
 *  - SNAPSHOT versions are refused (400): a published version never changes here.
 */

type FileRequest = Extract<MavenRequest, { type: 'file' }>;

export const ZIP_EXTS = new Set(['jar', 'war', 'ear', 'aar', 'zip', 'hpi', 'jpi', 'nbm']);
export const CONTENT_TYPES: Record<string, string> = {
  pom: 'application/xml',
  xml: 'application/xml',
  jar: 'application/java-archive',
  zip: 'application/zip',
  module: 'application/json',
};
const TEXT = 'text/plain; charset=utf-8';
const HEX_LENGTH: Record<ChecksumAlgorithm, number> = { md5: 32, sha1: 40, sha256: 64, sha512: 128 };
/** A checksum file is a line of hex (and perhaps a file name): more than this is not one. */
const MAX_CHECKSUM_BYTES = 1024;

/** Checksum headers a client may send with a PUT (Maven Resolver 1.9+ and curl scripts). */
const CLAIMED = [
  ['x-checksum-sha1', 'sha1'],
  ['x-checksum-sha256', 'sha256'],
  ['x-checksum-sha512', 'sha512'],
] as const;

function claimedDigests(rc: RequestContext): Digest[] {
  const out: Digest[] = [];
  for (const [header, algorithm] of CLAIMED) {
    const value = rc.headers[header];
    if (value === undefined) continue;
    if (!new RegExp(`^[0-9a-fA-F]{${HEX_LENGTH[algorithm]}}$`).test(value))
      throw errors.badRequest(`${header} must be ${HEX_LENGTH[algorithm]} hex digits`);
    out.push({ algorithm, hex: value });
  }
  return out;
}

/** Reads the whole (small) request body; `rc.body()` already refuses more than `max_publish_bytes`. */
async function readBody(body: Readable, max = Infinity): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of body) {
    n += (c as Buffer).length;
    if (n > max) {
      body.destroy();
      throw errors.badRequest(`a checksum file is at most ${max} bytes`);
    }
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

/** What a POM says about itself: its own groupId/version, or its parent's when it inherits them. */
export function pomIdentity(pom: Buffer): { groupId?: string; artifactId?: string; version?: string } {
  const why = checkDocument(pom, 'project');
  if (why) throw errors.badRequest(`the POM ${why}`);
  const found: Record<string, string> = {};
  walk(pom.toString('utf8'), (path, text) => {
    if (/^project\/(?:parent\/)?(?:groupId|artifactId|version)$/.test(path) && found[path] === undefined)
      found[path] = text;
  });
  return {
    groupId: found['project/groupId'] || found['project/parent/groupId'] || undefined,
    artifactId: found['project/artifactId'] || undefined,
    version: found['project/version'] || found['project/parent/version'] || undefined,
  };
}

function checkPom(pom: Buffer, r: FileRequest): void {
  const [group, artifact] = r.coordinate.name.split(':') as [string, string];
  const version = r.coordinate.version!;
  const id = pomIdentity(pom);
  if (!id.groupId) throw errors.badRequest('the POM has no groupId (and no parent groupId)');
  const disagree: string[] = [];
  if (id.groupId !== group) disagree.push(`groupId "${id.groupId.slice(0, 100)}" (the path says "${group}")`);
  if (id.artifactId !== artifact)
    disagree.push(`artifactId "${(id.artifactId ?? '').slice(0, 100)}" (the path says "${artifact}")`);
  if (id.version !== version)
    disagree.push(`version "${(id.version ?? '').slice(0, 100)}" (the path says "${version}")`);
  if (disagree.length) throw errors.badRequest(`the POM disagrees with its path: ${disagree.join(', ')}`);
}

/** The main POM of a version (`<artifactId>-<version>.pom`), whose arrival records the version. */
function isMainPom(r: FileRequest): boolean {
  const [, artifact] = r.coordinate.name.split(':') as [string, string];
  return r.role === 'primary' && r.path.endsWith(`/${artifact}-${r.coordinate.version}.pom`);
}

/** Stores a file (a primary file or a signature) and the four checksum files hub makes for it. */
async function storeFile(rc: RequestContext, r: FileRequest): Promise<void> {
  const coordinate = r.coordinate;
  const md5 = crypto.createHash('md5');
  let body: Readable | Buffer;
  if (isMainPom(r)) {
    body = await readBody(rc.body());
    checkPom(body, r);
    md5.update(body);
  } else {
    const hashing = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        md5.update(chunk);
        cb(null, chunk);
      },
    });
    // pipeline (not pipe) so a body refused mid-way (413, a client gone) fails the store instead of stalling it.
    pipeline(rc.body(), hashing, () => {});
    body = hashing;
  }
  const contentType =
    r.role === 'signature' ? 'application/pgp-signature' : (CONTENT_TYPES[r.ext] ?? 'application/octet-stream');
  const format = r.role === 'primary' && ZIP_EXTS.has(r.ext) ? ('zip' as const) : undefined;
  const stored = await rc.local.putFile({
    key: r.path,
    coordinate,
    contentType,
    format,
    body,
    digests: claimedDigests(rc),
  });
  const sums: Record<ChecksumAlgorithm, string> = {
    sha1: stored.sha1,
    md5: md5.digest('hex'),
    sha256: stored.sha256,
    sha512: stored.sha512,
  };
  for (const algorithm of CHECKSUMS) {
    await rc.local.putFile({
      key: `${r.path}.${algorithm}`,
      coordinate,
      contentType: TEXT,
      body: Buffer.from(sums[algorithm]),
    });
  }
  if (isMainPom(r)) {
    await rc.local.addVersion(coordinate.name, coordinate.version!);
    rc.recordAction('publish', coordinate, r.path);
  } else {
    rc.recordAction('upload', coordinate, r.path);
  }
}

/**
 * A checksum file the client PUTs after a file: compared with the one hub made from the file's bytes. Hub's
 * checksum file holds just the lowercase hex, so the digest of the client's hex must equal the stored file's.
 */
async function checkChecksum(rc: RequestContext, r: FileRequest): Promise<void> {
  const algorithm = r.checksum!;
  const text = (await readBody(rc.body(), MAX_CHECKSUM_BYTES)).toString('latin1');
  if (checkChecksumHead(algorithm)(Buffer.from(text, 'latin1')))
    throw errors.badRequest(`${r.path} is not a ${algorithm} checksum file`);
  const hex = text.trim().split(/\s+/)[0]!.toLowerCase();
  const target = r.path.slice(0, -(algorithm.length + 1));
  if (!(await rc.local.file(target)))
    throw errors.badRequest(`${target} is not published here: PUT it before its checksum`);
  const ours = await rc.local.file(r.path);
  if (!ours) throw errors.badRequest(`hub keeps no ${algorithm} for ${target}`);
  if (ours.sha256 !== sha256(hex))
    throw errors.badRequest(`the ${algorithm} sent for ${target} (${hex}) does not match the bytes hub received`);
}

/** PUT of maven-metadata.xml (or its checksums): accepted, within the size cap, and not kept. */
async function dropMetadata(rc: RequestContext): Promise<void> {
  for await (const _ of rc.body()) {
    // drained: hub generates maven-metadata.xml from the versions published here
  }
}

/** A PUT path that is malformed is refused by parseRequest (400); one whose file is not of its folder is 400 here too. */
function parsePut(segments: readonly string[]): { request: MavenRequest } | { refused: string } | null {
  try {
    const r = parseRequest(segments);
    return r ? { request: r } : null;
  } catch (e) {
    if (isHubError(e) && e.code === 'not_found') return { refused: e.message };
    throw e;
  }
}

/** PUT /proxy/<name>/maven2/<path>: what `mvn deploy` sends. */
export const publishRoute: KindRoute = {
  id: 'publish',
  methods: ['PUT'],
  permission: 'source:write',
  match(segments): RouteMatch | null {
    const p = parsePut(segments);
    if (!p) return null;
    if ('refused' in p) return { params: { refused: p.refused } };
    return { coordinate: p.request.coordinate, params: { request: JSON.stringify(p.request) } };
  },
  async handle(rc, m) {
    if (m.params!.refused)
      throw errors.badRequest(`${m.params!.refused}: a file is published in its own version folder`);
    const r = JSON.parse(m.params!.request!) as MavenRequest;
    const version = r.coordinate.version;
    if (version !== undefined && isSnapshot(version))
      throw errors.badRequest(
        `${r.coordinate.name}:${version}: hub does not take SNAPSHOT deploys (a published version never changes); deploy a release version`,
      );
    if (r.type === 'metadata') {
      await dropMetadata(rc);
      rc.recordAction(
        'upload',
        r.coordinate,
        `${r.path}${r.checksum ? `.${r.checksum}` : ''} (not kept: hub generates it)`,
      );
      return reply.json(
        { path: r.path, stored: false, note: 'hub generates maven-metadata.xml from the versions published here' },
        201,
      );
    }
    if (r.role === 'checksum') {
      await checkChecksum(rc, r);
      rc.recordAction('upload', r.coordinate, `${r.path} (matches hub's own)`);
      return reply.json({ path: r.path, verified: true }, 201);
    }
    await storeFile(rc, r);
    return reply.json({ path: r.path }, 201);
  },
};

/** DELETE /proxy/<name>/maven2/<group path>/<artifactId>/<version>/: deletes a published version (a tombstone keeps its number). */
export const deleteRoute: KindRoute = {
  id: 'delete',
  methods: ['DELETE'],
  permission: 'source:write',
  match(segments) {
    if (segments[0] !== 'maven2' || segments.at(-1) !== '' || segments.length < 5) return null;
    // The folder path, parsed as the POM inside it would be (which checks every name in it).
    const s = segments.slice(0, -1);
    const [artifact, version] = [s.at(-2)!, s.at(-1)!];
    const p = parsePut([...s, `${artifact}-${version}.pom`]);
    if (!p || 'refused' in p || p.request.type !== 'file') return null;
    return { coordinate: p.request.coordinate };
  },
  async handle(rc, m) {
    const { name, version } = m.coordinate!;
    if (!(await rc.local.deleteVersion(name, version!)))
      throw errors.notFound(`${name}:${version} is not published here`);
    rc.recordAction('unpublish', m.coordinate!);
    return reply.json({ deleted: `${name}:${version}` }, 200);
  },
};
