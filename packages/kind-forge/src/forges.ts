import { HubError } from '@hub/contract';
import { checkRepoName, checkSegment, encodePath, MAX_PATH } from './names.js';

/** One release asset, as a route recognised it. */
export interface ForgeAsset {
  /**
   * The project: `owner/repo` (GitLab: the full `group/sub/project` path), in lower case: forges compare these
   * names case-insensitively, so `EvilCorp/Backdoor` is `evilcorp/backdoor` for blocks, flags, the cache and
   * the upstream request alike. The block coordinate name.
   */
  project: string;
  /** The release tag: the coordinate version. */
  tag: string;
  /** The file name (GitLab: may be a path). */
  file: string;
  /** Path below the configured upstream, percent-encoded, without a leading slash. Also the cache key. */
  upstreamPath: string;
}

/** One path shape a forge serves assets under. `match` returns null for other paths and throws for bad names. */
export interface AssetRoute {
  id: string;
  match(segments: readonly string[]): ForgeAsset | null;
}

export type Headers = Readonly<Record<string, string | undefined>>;

export interface Forge {
  id: 'github' | 'gitlab' | 'forgejo';
  description: string;
  routes: readonly AssetRoute[];
  /** Whether an upstream answer says the API rate limit is used up. */
  rateLimited(status: number, headers: Headers): boolean;
}

function checkLength(segments: readonly string[]): void {
  if (segments.reduce((n, s) => n + s.length + 1, 0) > MAX_PATH)
    throw new HubError('uri_too_long', `asset paths are limited to ${MAX_PATH} characters`);
}

/** `<owner>/<repo>/releases/download/<tag>/<asset>`: GitHub, and Forgejo/Gitea with the same shape. */
const releaseDownload: AssetRoute = {
  id: 'release-asset',
  match(s) {
    if (s.length !== 6 || s[2] !== 'releases' || s[3] !== 'download') return null;
    checkLength(s);
    const [owner, repo, , , tag, file] = s as [string, string, string, string, string, string];
    const project = [checkRepoName(owner, 'owner'), checkRepoName(repo, 'repository')];
    checkSegment(tag, 'tag');
    checkSegment(file, 'asset name');
    return {
      project: project.join('/'),
      tag,
      file,
      upstreamPath: encodePath([...project, 'releases', 'download', tag, file]),
    };
  },
};

/** GitLab's permanent release link `<group>/.../<project>/-/releases/<tag>/downloads/<filepath>`. */
const gitlabPermalink: AssetRoute = {
  id: 'release-link',
  match(s) {
    const dash = s.indexOf('-');
    if (dash < 2 || s[dash + 1] !== 'releases' || s[dash + 3] !== 'downloads' || s.length < dash + 5) return null;
    checkLength(s);
    const project = s.slice(0, dash).map((p) => checkRepoName(p, 'group or project'));
    const tag = checkSegment(s[dash + 2]!, 'tag');
    const file = s.slice(dash + 4).map((p) => checkSegment(p, 'file path'));
    return {
      project: project.join('/'),
      tag,
      file: file.join('/'),
      upstreamPath: encodePath([...project, '-', 'releases', tag, 'downloads', ...file]),
    };
  },
};

/** GitLab's API form `api/v4/projects/<group%2Fproject>/releases/<tag>/downloads/<filepath>`. */
const gitlabApiLink: AssetRoute = {
  id: 'api-release-link',
  match(s) {
    if (
      s.length < 8 ||
      s[0] !== 'api' ||
      s[1] !== 'v4' ||
      s[2] !== 'projects' ||
      s[4] !== 'releases' ||
      s[6] !== 'downloads'
    )
      return null;
    checkLength(s);
    // The one place a decoded slash is expected: the URL-encoded project path.
    const parts = s[3]!.split('/');
    if (parts.length < 2)
      throw new HubError('bad_request', 'the project must be given as its URL-encoded path, group%2Fproject');
    const project = parts.map((p) => checkRepoName(p, 'group or project')).join('/');
    const tag = checkSegment(s[5]!, 'tag');
    const file = s.slice(7).map((p) => checkSegment(p, 'file path'));
    return {
      project,
      tag,
      file: file.join('/'),
      upstreamPath: `api/v4/projects/${encodeURIComponent(project)}/releases/${encodePath([tag, 'downloads', ...file])}`,
    };
  },
};

const remainingZero = (h: Headers, name: string): boolean => h[name]?.trim() === '0';

/** The per-forge table: which paths carry release assets and how each forge says "rate limit reached". */
export const FORGES: Record<Forge['id'], Forge> = {
  github: {
    id: 'github',
    description: 'GitHub release assets, proxied by path',
    routes: [releaseDownload],
    // 403 with x-ratelimit-remaining: 0, sometimes 429.
    rateLimited: (status, h) => status === 429 || (status === 403 && remainingZero(h, 'x-ratelimit-remaining')),
  },
  gitlab: {
    id: 'gitlab',
    description: 'GitLab release assets (permanent links and the API form), proxied by path',
    routes: [gitlabApiLink, gitlabPermalink],
    rateLimited: (status, h) => status === 429 || (status === 403 && remainingZero(h, 'ratelimit-remaining')),
  },
  forgejo: {
    id: 'forgejo',
    description: 'Forgejo and Gitea release assets, proxied by path',
    routes: [releaseDownload],
    rateLimited: (status, h) => status === 429 || (status === 403 && remainingZero(h, 'x-ratelimit-remaining')),
  },
};
