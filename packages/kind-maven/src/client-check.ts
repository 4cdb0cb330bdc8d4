/** `hub check --maven NAME` (packages/cli/README.md): maven-metadata.xml is <metadata>, the version's .pom is <project>. */
import type { ClientCheck } from '@hub/contract';

const MAVEN_PART = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export const clientCheck: ClientCheck<{ group: string; artifact: string; version: string }> = {
  option: 'maven-artifact',
  form: 'group:artifact:version',
  fallback: 'junit:junit:4.13.2',
  help: [
    'http: maven2/<group path>/<artifact>/maven-metadata.xml is XML <metadata>',
    "tool: the version's .pom is XML <project>",
  ],
  parse(v) {
    const parts = v.split(':');
    if (parts.length !== 3 || parts.some((p) => !MAVEN_PART.test(p) || p.includes('..')))
      return 'a Maven coordinate such as junit:junit:4.13.2';
    return { group: parts[0]!, artifact: parts[1]!, version: parts[2]! };
  },
  async run(kit, { group, artifact, version }) {
    const { attempt, get, ok200, xmlWithRoot, seg } = kit;
    const dir = `maven2/${group.split('.').map(seg).join('/')}/${seg(artifact)}`;
    const http = await attempt(async () => {
      const g = ok200(await get(`${dir}/maven-metadata.xml`, 'application/xml, text/xml, */*'));
      return `GET ${g.what}: 200, XML ${xmlWithRoot(g, 'metadata')}`;
    });
    const tool = await attempt(async () => {
      const g = ok200(
        await get(`${dir}/${seg(version)}/${seg(`${artifact}-${version}.pom`)}`, 'application/xml, text/xml, */*'),
      );
      return `GET ${g.what}: 200, XML ${xmlWithRoot(g, 'project')}`;
    });
    return { http, tool };
  },
};
