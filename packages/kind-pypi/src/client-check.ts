/** `hub check --pypi NAME` (packages/cli/README.md): the project page in both forms, then what pip download does. */
import type { ClientCheck } from '@hub/contract';
import { JSON_TYPE } from './project-page.js';
import { normalizeName, parseDistFile } from './names.js';

/** `<proxyBase>/simple/` with the token as the Basic password, as pip is configured. */
export function indexUrl(proxyBase: string, token: string | undefined): string {
  const u = new URL(`${proxyBase}/simple/`);
  if (token) {
    u.username = 'hub';
    u.password = token;
  }
  return u.href;
}

export const clientCheck: ClientCheck = {
  option: 'pypi-project',
  form: 'name@version',
  fallback: 'six@1.16.0',
  help: [
    'http: simple/<project>/ (PEP 691 JSON) names a <version> file that is 200',
    'tool: pip download <project>==<version> through the hub (skipped without pip)',
  ],
  async run(kit, { name, version }) {
    const { attempt, get, ok200, jsonOf, fail, printable, size, seg } = kit;
    const project = normalizeName(name);
    const http = await attempt(async () => {
      const page = ok200(await get(`simple/${seg(project)}/`, JSON_TYPE));
      const files = jsonOf(page).files;
      if (!Array.isArray(files)) return fail(`GET ${page.what}: 200 but no "files" list (not a PEP 691 page)`);
      const file = (files as Array<Record<string, unknown>>).find(
        (f) => typeof f.filename === 'string' && fileVersion(f.filename, project) === version,
      );
      if (!file || typeof file.url !== 'string')
        return fail(`GET ${page.what}: no file of ${project} ${version} among ${files.length}`);
      const dl = ok200(await get(file.url));
      return `GET ${page.what}: 200, ${files.length} file(s); ${printable(String(file.filename))}: 200 (${size(dl.body.length)})`;
    });
    const tool = await attempt(async () => {
      const v = await kit.runTool('pip', ['--version'], { env: kit.env });
      if (!v) return { result: 'skip', detail: 'pip is not installed' };
      return kit.inTempDir('hub-check-pypi-', async (dir) => {
        // The index URL (with the token) goes in the environment: a failing command is printed with its arguments.
        const env = {
          ...kit.env,
          PIP_INDEX_URL: indexUrl(kit.proxyBase, kit.token),
          PIP_CONFIG_FILE: '/dev/null',
          PIP_NO_CACHE_DIR: '1',
          PIP_DISABLE_PIP_VERSION_CHECK: '1',
          PIP_NO_INPUT: '1',
        };
        await kit.runTool('pip', ['download', '--no-deps', '--dest', dir, `${project}==${version}`], { cwd: dir, env });
        return `pip download ${project}==${version}: ok`;
      });
    });
    return { http, tool };
  },
};

const fileVersion = (filename: string, project: string): string | undefined =>
  parseDistFile(project, filename)?.version;
