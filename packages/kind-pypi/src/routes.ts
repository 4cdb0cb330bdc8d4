import crypto from 'node:crypto';
import {
  errors,
  isHubError,
  looksLikeHtml,
  reply,
  type KindRoute,
  type MetadataDoc,
  type MetadataSpec,
  type Reply,
  type RequestContext,
  type RouteMatch,
} from '@hub/contract';
import { CONTENT_TYPE, negotiate } from './negotiate.js';
import { isProjectName, normalizeName, parseDistFile } from './names.js';
import { canonicalVersion } from './pep440.js';
import { checkPage, digestOf, parsePage, UPSTREAM_ACCEPT, type ProjectFile } from './project-page.js';
import { localFiles, uploadRoute } from './publish.js';
import { renderPage } from './render.js';

/** The registry's cool-down in seconds (`[registries.security] min_release_age_secs`; 0: none). */
const coolDown = (rc: RequestContext): number => rc.registry.minReleaseAgeSecs ?? 0;

/** The upstream's project page: `<upstream>/<project>/`, JSON preferred (PEP 691), HTML understood; kept when the upstream removes the project. */
export const pageSpec = (rc: Pick<RequestContext, 'registry'>, project: string): MetadataSpec => ({
  key: `page:${project}`,
  url: `${rc.registry.upstream}/${encodeURIComponent(project)}/`,
  headers: { accept: UPSTREAM_ACCEPT },
  check: (body, contentType) => checkPage(project, body, contentType),
  packageName: project,
});

async function upstreamFiles(
  rc: RequestContext,
  project: string,
): Promise<{ files: readonly ProjectFile[]; doc: MetadataDoc }> {
  // Local registries are not supported yet (no publishing): there is no upstream to read.
  if (!rc.registry.upstream)
    throw errors.notFound(
      `registry ${rc.registry.name} has no upstream, and publishing to pypi registries is not supported`,
    );
  const spec = pageSpec(rc, project);
  const doc = await rc.metadata(spec);
  return { files: doc.derive('page', (b) => parsePage(project, b, doc.contentType, spec.url)).files, doc };
}

/** `hidden` holds canonical spellings (the runtime's unlisting compares versions by them). */
const isHidden = (hidden: ReadonlySet<string>, version: string) =>
  hidden.size > 0 && hidden.has(canonicalVersion(version));

/**
 * A version a block refuses stays on the page, yanked with the block's message (PEP 592): a range passes
 * over it to the newest allowed version, and an exact pin still reaches the 403 (decision 0040).
 */
function markBlocked(files: readonly ProjectFile[], blocked: ReadonlyMap<string, string>): readonly ProjectFile[] {
  if (blocked.size === 0) return files;
  return files.map((f) => {
    const why = blocked.get(canonicalVersion(f.version));
    return why === undefined ? f : { ...f, yanked: why };
  });
}

/**
 * Whether the upstream is asked about `project`: always in proxy mode, never in local mode, and in hybrid
 * mode only for names not published here (a published name is local_only: no dependency confusion).
 */
async function upstreamMayList(rc: RequestContext, project: string): Promise<boolean> {
  if (rc.registry.mode === 'proxy') return true;
  if (rc.registry.mode === 'local') return false;
  return !(await rc.local.ownsName(project));
}

/**
 * Files a client is offered: unlisted versions left out, (with a cool-down) files not shown to be old enough, and
 * from a kept page (the upstream removed the project) only the versions hub holds.
 */
function offered(
  rc: RequestContext,
  doc: MetadataDoc,
  files: readonly ProjectFile[],
  hidden: ReadonlySet<string>,
  now: number,
): ProjectFile[] {
  const age = coolDown(rc) * 1000;
  const held = doc.kept && new Set([...doc.kept.heldVersions].map(canonicalVersion));
  return files.filter(
    (f) =>
      !isHidden(hidden, f.version) &&
      (!held || held.has(canonicalVersion(f.version))) &&
      (age <= 0 || (f.uploadTime !== undefined && now - f.uploadTime.getTime() >= age)),
  );
}

/** A redirect with a short body (a null body would be answered as 204). */
function canonicalPage(rc: RequestContext, project: string): Reply {
  const location = `${rc.baseUrl}/simple/${encodeURIComponent(project)}/`;
  return reply.bytes(
    `moved to ${location}\n`,
    'text/plain; charset=utf-8',
    { location, 'cache-control': 'max-age=3600' },
    301,
  );
}

/** `simple/<project>/`: the project page in the form the client negotiated (PEP 503 HTML or PEP 691 JSON). */
const projectPage: KindRoute = {
  id: 'project',
  match(s) {
    if (s[0] !== 'simple' || s.length < 2 || s.length > 3 || (s.length === 3 && s[2] !== '')) return null;
    const raw = s[1]!;
    if (!isProjectName(raw)) throw errors.badRequest(`"${raw.slice(0, 100)}" is not a valid project name`);
    return { coordinate: { name: normalizeName(raw) }, params: { raw, slash: s.length === 3 ? '1' : '' } };
  },
  async handle(rc, m) {
    const project = m.coordinate!.name;
    // A non-normalised name (or no trailing slash): pip follows the redirect to the one canonical URL.
    if (m.params!.raw !== project || !m.params!.slash) return canonicalPage(rc, project);
    const local = await localFiles(rc, project);
    let up: Awaited<ReturnType<typeof upstreamFiles>> | null = null;
    if (await upstreamMayList(rc, project)) {
      try {
        up = await upstreamFiles(rc, project);
      } catch (e) {
        // Hybrid: the versions published here are served when the upstream has no such project, or fails.
        if (local.length === 0) throw e;
        if (!(isHubError(e) && e.code === 'not_found'))
          rc.log.warn(
            { err: { message: (e as Error).message }, project },
            'upstream page unavailable; serving the published files only',
          );
      }
    }
    if (!up && local.length === 0) throw errors.notFound(`${project} is not published to registry ${rc.registry.name}`);
    const hidden = await rc.hiddenVersions(project);
    const blocked = await rc.blockedVersions(project);
    const form = negotiate(rc.headers.accept);
    const render = () => {
      // Files published here are hub's own: the cool-down is for what upstreams publish.
      const files = [
        ...(up ? offered(rc, up.doc, up.files, hidden, Date.now()) : []),
        ...local.filter((f) => !isHidden(hidden, f.version)),
      ];
      const body = renderPage(form, project, markBlocked(files, blocked), rc.baseUrl);
      return { body, etag: `"${crypto.createHash('sha256').update(body).digest('hex').slice(0, 40)}"` };
    };
    // Memoised for these upstream bytes, this form, base URL, unlisted set and blocks; a cool-down depends on the clock.
    const memo = up && local.length === 0 && coolDown(rc) === 0 && !up.doc.kept;
    const blocks = [...blocked]
      .map(([v, why]) => `${v}=${why}`)
      .sort()
      .join('\n');
    const page = memo
      ? up!.doc.derive(`served:${form}:${rc.baseUrl}:${[...hidden].sort().join(',')}:${blocks}`, render)
      : render();
    return reply.bytes(page.body, CONTENT_TYPE[form], {
      vary: 'Accept',
      etag: page.etag,
      'cache-control': 'max-age=0, must-revalidate',
      // hub renders this page itself (every value escaped): readable in a browser, still under the sandbox policy (decision 0035).
      'content-disposition': 'inline',
      ...(up?.doc.stale ? { 'x-hub-stale': '1' } : {}),
    });
  },
};

/** A file name from the path: the coordinate comes from the name alone, so blocks apply before any upstream request. */
function fileMatch(s: readonly string[]): RouteMatch | null {
  if (s.length !== 3 || s[0] !== 'files') return null;
  const [raw, file] = [s[1]!, s[2]!];
  if (!isProjectName(raw)) throw errors.badRequest(`"${raw.slice(0, 100)}" is not a valid project name`);
  const project = normalizeName(raw);
  const metadata = file.endsWith('.metadata');
  const filename = metadata ? file.slice(0, -'.metadata'.length) : file;
  const dist = parseDistFile(project, filename);
  if (!dist) return null;
  return {
    coordinate: { name: project, version: dist.version },
    params: { filename, metadata: metadata ? '1' : '', format: dist.format ?? '' },
  };
}

const notMetadata = (head: Buffer): string | null =>
  looksLikeHtml(head) ? 'looks like an HTML page, not core metadata' : null;

/** `files/<project>/<file>` (and `<file>.metadata`, PEP 658): immutable, verified against the upstream's hash. */
const fileRoute: KindRoute = {
  id: 'file',
  match: fileMatch,
  handle(rc, m) {
    const { name: project, version } = m.coordinate as { name: string; version: string };
    const { filename, metadata, format } = m.params as {
      filename: string;
      metadata: string;
      format: '' | 'zip' | 'gzip';
    };
    return rc.artifact({
      key: `files/${project}/${filename}${metadata ? '.metadata' : ''}`,
      coordinate: { name: project, version },
      contentType: metadata ? 'text/plain; charset=utf-8' : 'application/octet-stream',
      ...(metadata ? { checkHead: notMetadata } : format ? { format } : {}),
      async source() {
        // Not held: a file published here would have been served from the store, so only the upstream is left.
        if (!(await upstreamMayList(rc, project)))
          throw errors.notFound(`${filename} is not published to registry ${rc.registry.name}`);
        const { files } = await upstreamFiles(rc, project);
        const f = files.find((x) => x.filename === filename);
        if (!f) throw errors.notFound(`${filename} is not a file of ${project} on the upstream`);
        if (metadata && !f.metadata) throw errors.notFound(`the upstream serves no core metadata for ${filename}`);
        let publishedAt: Date | undefined;
        if (coolDown(rc) > 0) {
          if (!f.uploadTime)
            throw errors.packageBlocked(
              `${filename} has no upload-time on the upstream's project page, so it cannot be shown to be older than the registry's min_release_age_secs (${coolDown(rc)})`,
            );
          publishedAt = f.uploadTime;
        }
        const digest = digestOf(metadata ? f.metadata!.hashes : f.hashes);
        const url = new URL(f.url);
        if (metadata) url.pathname += '.metadata';
        return {
          url: url.href,
          ...(digest ? { digest } : {}),
          ...(!metadata && f.size !== undefined ? { size: f.size } : {}),
          ...(publishedAt ? { publishedAt } : {}),
        };
      },
    });
  },
};

export const routes: readonly KindRoute[] = [projectPage, fileRoute, uploadRoute];
