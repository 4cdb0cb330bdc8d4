/** `hub check --github NAME` (packages/cli/README.md): a release asset by its route; release assets have no client tool. */
import type { ClientCheck } from '@hub/contract';

const SEGMENT = /^[A-Za-z0-9_.+~@-]+$/;

export const githubClientCheck: ClientCheck<{ owner: string; repo: string; tag: string; asset: string }> = {
  option: 'github-asset',
  form: 'owner/repo/tag/asset',
  fallback: 'cli/cli/v2.40.0/gh_2.40.0_linux_amd64.tar.gz',
  help: ['http: the release asset is 200 gzip (ZIP for a .zip asset); no tool check'],
  parse(v) {
    const parts = v.split('/');
    if (parts.length < 4 || parts.some((p) => !SEGMENT.test(p) || p === '.' || p === '..'))
      return 'a release asset such as cli/cli/v2.40.0/gh_2.40.0_linux_amd64.tar.gz';
    return { owner: parts[0]!, repo: parts[1]!, tag: parts.slice(2, -1).join('/'), asset: parts.at(-1)! };
  },
  async run(kit, { owner, repo, tag, asset }) {
    const zip = /\.zip$/i.test(asset);
    const http = await kit.attempt(async () => {
      const g = kit.ok200(
        await kit.get([owner, repo, 'releases', 'download', ...tag.split('/'), asset].map(kit.seg).join('/')),
      );
      if (zip) kit.zipped(g);
      else kit.gzipped(g);
      return `GET ${g.what}: 200, ${zip ? 'ZIP' : 'gzip'} (${kit.size(g.body.length)})`;
    });
    return {
      http,
      tool: { result: 'skip', detail: 'release assets have no client tool; the http check downloaded the asset' },
    };
  },
};
