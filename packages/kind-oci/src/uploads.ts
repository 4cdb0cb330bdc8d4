/**
 * Blob uploads, the distribution API's push half (decision 0054): monolithic (`POST ?digest=`, or `POST` then
 * `PUT ?digest=`), chunked (`PATCH` parts with `Content-Range`, `PUT` to finish), the upload's state (`GET`),
 * cancel (`DELETE`), and the cross-repository mount (`POST ?mount=&from=`). Sessions and parts live in the
 * database and the shared blob store (`rc.local.uploads`), so any replica takes any request of an upload; the
 * blob is verified against its digest while it streams into the store, and is served only once complete.
 */
import {
  errors,
  isHubError,
  type KindRoute,
  type Reply,
  type RequestContext,
  type RouteMatch,
  type UploadState,
} from '@hub/contract';
import type { OciConfig } from './config.js';
import { API_VERSION_HEADER, blobKey, claimRepository, repoPath, splitTail } from './hosted.js';
import { isDigest, isRepository } from './names.js';
import { ociError } from './oci-errors.js';

type Rc = RequestContext<OciConfig>;

const BLOB_TYPE = 'application/octet-stream';

/** `Range: 0-<last byte>` as the distribution API's clients read it (`0-0` for nothing yet). */
const rangeOf = (size: number) => `0-${Math.max(0, size - 1)}`;

function uploadReply(rc: Rc, repo: string, s: UploadState, status: number): Reply {
  return {
    status,
    headers: {
      ...API_VERSION_HEADER,
      location: `${repoPath(rc, repo)}/blobs/uploads/${s.id}`,
      range: rangeOf(s.size),
      'docker-upload-uuid': s.id,
      'content-length': '0',
    },
    // An empty body, not null: koa would make a null body's answer a 204.
    body: Buffer.alloc(0),
  };
}

function blobCreated(rc: Rc, repo: string, digest: string): Reply {
  return {
    status: 201,
    headers: {
      ...API_VERSION_HEADER,
      location: `${repoPath(rc, repo)}/blobs/${digest}`,
      'docker-content-digest': digest,
      'content-length': '0',
    },
    body: Buffer.alloc(0),
  };
}

function digestParam(rc: Rc): string {
  const d = rc.query.get('digest');
  if (!d || !isDigest(d))
    throw ociError(
      'bad_request',
      'DIGEST_INVALID',
      `"digest" must be a sha256 digest (sha256:<64 hex>), got ${JSON.stringify((d ?? '').slice(0, 100))}`,
    );
  return d;
}

/** Discards a request body hub does not need (the blob is here already). */
function drain(rc: Rc): void {
  if (rc.headers['content-length'] === '0') return;
  try {
    rc.body().resume();
  } catch {
    // A body past the cap is not read at all.
  }
}

/** The start of a part from `Content-Range: <start>-<end>`; undefined when the client sent none. */
function partStart(rc: Rc): number | undefined {
  const header = rc.headers['content-range'];
  if (header === undefined) return undefined;
  const m = /^(?:bytes[ =])?(\d{1,15})-(\d{1,15})(?:\/(?:\d+|\*))?$/.exec(header.trim());
  if (!m || Number(m[2]) < Number(m[1]))
    throw ociError(
      'bad_request',
      'BLOB_UPLOAD_INVALID',
      `Content-Range must be <start>-<end>, got ${JSON.stringify(header.slice(0, 100))}`,
      416,
    );
  return Number(m[1]);
}

/** Stores a whole blob sent in one request (`POST ?digest=`); a blob already here is not stored twice. */
async function monolithic(rc: Rc, repo: string, digest: string): Promise<Reply> {
  if (await rc.local.file(blobKey(repo, digest))) {
    drain(rc);
    return blobCreated(rc, repo, digest);
  }
  await rc.local.putFile({
    key: blobKey(repo, digest),
    coordinate: { name: repo },
    contentType: BLOB_TYPE,
    body: rc.body(),
    digests: [{ algorithm: 'sha256', hex: digest.slice(7) }],
  });
  await claimRepository(rc, repo);
  rc.recordAction('upload', { name: repo, version: digest });
  return blobCreated(rc, repo, digest);
}

/** `POST ?mount=<digest>&from=<repo>`: the blob linked from a repository the user may push to, else null (an upload starts instead). */
async function mount(rc: Rc, repo: string, digest: string, from: string): Promise<Reply | null> {
  if (!isRepository(from)) return null;
  try {
    // Reading the source repository needs what pushing there needs: its permission and no block on it.
    await rc.authorize({ name: from, version: digest });
    const linked = await rc.local.files.link(blobKey(repo, digest), { name: repo }, BLOB_TYPE, blobKey(from, digest));
    if (!linked) return null;
  } catch (e) {
    if (isHubError(e) && (e.status === 403 || e.status === 404)) return null;
    throw e;
  }
  await claimRepository(rc, repo);
  rc.recordAction('upload', { name: repo, version: digest }, `mounted from ${from}`);
  return blobCreated(rc, repo, digest);
}

async function start(rc: Rc, repo: string): Promise<Reply> {
  const mounted = rc.query.get('mount');
  const from = rc.query.get('from');
  if (mounted !== null && isDigest(mounted) && from !== null) {
    const r = await mount(rc, repo, mounted, from);
    if (r) return r;
  }
  if (rc.query.has('digest')) return monolithic(rc, repo, digestParam(rc));
  const s = await rc.local.uploads.start(repo);
  return uploadReply(rc, repo, s, 202);
}

async function finish(rc: Rc, repo: string, id: string): Promise<Reply> {
  const digest = digestParam(rc);
  const key = blobKey(repo, digest);
  if (await rc.local.file(key)) {
    // The registry holds these bytes already: the upload ends without storing them twice.
    if (!(await rc.local.uploads.cancel(id, repo)))
      throw ociError('not_found', 'BLOB_UPLOAD_UNKNOWN', `no upload ${id} in progress`);
    drain(rc);
    return blobCreated(rc, repo, digest);
  }
  const hasBody =
    rc.headers['content-length'] !== '0' &&
    (rc.headers['content-length'] !== undefined || rc.headers['transfer-encoding'] !== undefined);
  try {
    await rc.local.uploads.finish(id, repo, {
      key,
      coordinate: { name: repo },
      contentType: BLOB_TYPE,
      body: hasBody ? rc.body() : undefined,
      digests: [{ algorithm: 'sha256', hex: digest.slice(7) }],
    });
  } catch (e) {
    // The same blob stored meanwhile by another upload (two layers pushed at once): these bytes are not needed.
    if (!isHubError(e) || e.status !== 409 || (await rc.local.file(key))?.sha256 !== digest.slice(7)) throw e;
    await rc.local.uploads.cancel(id, repo);
  }
  await claimRepository(rc, repo);
  rc.recordAction('upload', { name: repo, version: digest });
  return blobCreated(rc, repo, digest);
}

export const blobUploads: KindRoute<OciConfig> = {
  id: 'blob-upload',
  methods: ['POST', 'PATCH', 'PUT', 'GET', 'DELETE'],
  permission: 'source:write',
  match(s): RouteMatch | null {
    const p = splitTail(s, ['blobs', 'uploads']);
    if (!p) return null;
    const id = p.rest[0] ?? '';
    return { coordinate: { name: p.repo }, params: { id } };
  },
  async handle(rc, m) {
    const repo = m.coordinate!.name;
    const id = m.params!.id!;
    if (id === '') {
      if (rc.method !== 'POST')
        throw errors.notFound('an upload is started with POST; its URL is the Location of that answer');
      return start(rc, repo);
    }
    const unknown = () =>
      ociError(
        'not_found',
        'BLOB_UPLOAD_UNKNOWN',
        `no upload ${id.slice(0, 64)} in progress (finished, cancelled, expired, or not yours)`,
      );
    switch (rc.method) {
      case 'PATCH':
        return uploadReply(rc, repo, await rc.local.uploads.append(id, repo, rc.body(), partStart(rc)), 202);
      case 'PUT':
        return finish(rc, repo, id);
      case 'GET':
      case 'HEAD': {
        const s = await rc.local.uploads.state(id, repo);
        if (!s) throw unknown();
        return uploadReply(rc, repo, s, 204);
      }
      case 'DELETE':
        if (!(await rc.local.uploads.cancel(id, repo))) throw unknown();
        return { status: 204, headers: { ...API_VERSION_HEADER }, body: null };
      default:
        throw errors.notFound('no such upload request');
    }
  },
};
