/**
 * A third-party kind in one file, written only against the published contract, @hub/contract.
 *
 * The upstream it proxies is a static file tree:
 *   <upstream>/<package>/versions.json          {"versions": ["1.0.0", ...]}
 *   <upstream>/<package>/<version>/<file>       the files, immutable
 * hub serves the same paths below /proxy/<name>/, caching both.
 */
import {
  type ClientCheck,
  defineKind,
  errors,
  type KindRoute,
  nameAtVersion,
  probeAnswer,
  probeFetch,
  type ProbeLadder,
  reply,
} from '@hub/contract';

const NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/;
const VERSION = /^[0-9]+\.[0-9]+\.[0-9]+$/;
const FILE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
/** The most the probe reads of a listing. */
const MAX_LISTING_BYTES = 4 * 1024 * 1024;

function checkedName(name: string): string {
  if (!NAME.test(name)) throw errors.badRequest(`"${name.slice(0, 100)}" is not a valid package name`);
  return name;
}

interface Listing {
  versions: string[];
}

const listing: KindRoute = {
  id: 'versions',
  match: (s) => (s.length === 2 && s[1] === 'versions.json' ? { coordinate: { name: checkedName(s[0]!) } } : null),
  async handle(rc, m) {
    const name = m.coordinate!.name;
    const doc = await rc.metadata({
      key: `versions:${name}`,
      url: `${rc.registry.upstream}/${name}/versions.json`,
      check: (b) => (b.toString('utf8').trimStart().startsWith('{') ? null : 'not a JSON listing'),
    });
    // Unlisted versions disappear from the listing; the runtime keeps them downloadable by exact version.
    const hidden = await rc.hiddenVersions(name);
    const parsed = doc.derive('listing', (b) => JSON.parse(b.toString('utf8')) as Listing);
    return reply.json(
      { versions: parsed.versions.filter((v) => !hidden.has(v)) },
      200,
      doc.stale ? { 'x-hub-stale': '1' } : {},
    );
  },
};

const file: KindRoute = {
  id: 'file',
  match(s) {
    if (s.length !== 3) return null;
    if (!VERSION.test(s[1]!) || !FILE.test(s[2]!)) throw errors.badRequest('expected <package>/<x.y.z>/<file>');
    return { coordinate: { name: checkedName(s[0]!), version: s[1]! }, params: { file: s[2]! } };
  },
  handle: (rc, m) =>
    rc.artifact({
      key: `${m.coordinate!.name}/${m.coordinate!.version}/${m.params!.file}`,
      coordinate: m.coordinate!,
      contentType: 'application/octet-stream',
      format: m.params!.file!.endsWith('.tgz') ? 'gzip' : undefined,
      source: async () => ({
        url: `${rc.registry.upstream}/${m.coordinate!.name}/${m.coordinate!.version}/${m.params!.file}`,
      }),
    }),
};

/** The listing decides; a version it lacks is absent; a failing listing is inconclusive, never absent. */
const probe: ProbeLadder = async (pc, name, versions) => {
  // Never throws: a failure, a timeout or a listing past the cap is status 0, which is inconclusive.
  const res = await probeFetch(pc.upstream, `${pc.registry.upstream}/${name}/versions.json`, {
    maxBytes: MAX_LISTING_BYTES,
  });
  let status = res.status;
  let listed = new Set<string>();
  try {
    if (status === 200) listed = new Set((JSON.parse(res.body.toString('utf8')) as Listing).versions);
  } catch {
    status = 0;
  }
  const answer = probeAnswer(status);
  return versions.map((version) => ({
    version,
    rung: 'listing',
    answer: answer === 'present' ? (listed.has(version) ? 'present' : 'absent') : answer,
  }));
};

/**
 * `hub check --static NAME [--static-file <package>/<version>/<file>]`: the listing names the version, and
 * the file downloads. The CLI hands `run` a kit (requests to the hub, content checks, `attempt`/`fail`), so
 * this imports nothing but types; the kind has no client tool, so the tool check fetches what one would.
 */
const clientCheck: ClientCheck<{ name: string; version: string; file: string }> = {
  option: 'static-file',
  form: 'package/version/file',
  fallback: 'tool/1.0.0/tool.txt',
  help: ['http: <package>/versions.json lists the version', 'tool: <package>/<version>/<file> is 200'],
  parse(text) {
    const [name = '', version = '', file = '', ...rest] = text.split('/');
    if (rest.length || !NAME.test(name) || !VERSION.test(version) || !FILE.test(file))
      return 'a file such as tool/1.0.0/tool.txt';
    return { name, version, file };
  },
  async run(kit, { name, version, file }) {
    const http = await kit.attempt(async () => {
      const g = kit.ok200(await kit.get(`${name}/versions.json`, 'application/json'));
      const versions = kit.jsonOf(g).versions;
      if (!Array.isArray(versions) || !versions.includes(version))
        return kit.fail(`GET ${g.what}: does not list ${version}`);
      return `GET ${g.what}: 200, lists ${version}`;
    });
    const tool = await kit.attempt(async () => {
      const g = kit.ok200(await kit.get(`${name}/${version}/${kit.seg(file)}`));
      return `GET ${g.what}: 200 (${kit.size(g.body.length)})`;
    });
    return { http, tool };
  },
};

export default defineKind({
  id: 'static',
  contract: 1,
  addressing: 'package',
  description: 'Files on a static upstream, addressed as <package>/<version>/<file>',
  coordinate: nameAtVersion({
    split: 'first',
    isName: (name) => NAME.test(name),
    isVersion: (version) => VERSION.test(version),
  }),
  routes: [listing, file],
  probe,
  clientCheck,
});
