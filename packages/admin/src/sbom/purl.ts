/**
 * Package URLs (purl spec) for the kinds hub serves. The purl type follows the ecosystem, not hub's kind id
 * (go is `golang`, rubygems is `gem`); kinds without a purl type of their own are `generic`.
 */
const PURL_TYPE: Readonly<Record<string, string>> = {
  npm: 'npm',
  cargo: 'cargo',
  go: 'golang',
  maven: 'maven',
  nuget: 'nuget',
  rubygems: 'gem',
  terraform: 'terraform',
  vsix: 'vscode-extension',
  openvsx: 'vscode-extension',
};

export const purlType = (kind: string): string => PURL_TYPE[kind] ?? 'generic';

/** purl percent-encoding: everything but unreserved characters (so `@` in a scope is %40, `+` in a version %2B). */
const enc = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The purl of a package (a version, or none for a dependency known only by its range). */
export function purl(kind: string, name: string, version?: string): string {
  const type = purlType(kind);
  let path: string;
  if (type === 'maven' && name.includes(':')) {
    const [group, artifact] = name.split(':', 2) as [string, string];
    path = `${enc(group)}/${enc(artifact)}`;
  } else if (type === 'npm' && name.startsWith('@') && name.includes('/')) {
    const [scope, bare] = name.split('/', 2) as [string, string];
    path = `${enc(scope)}/${enc(bare)}`;
  } else if (type === 'golang' || type === 'generic' || type === 'terraform') {
    path = name.split('/').filter(Boolean).map(enc).join('/');
  } else if (type === 'vscode-extension' && name.includes('.')) {
    const at = name.indexOf('.');
    path = `${enc(name.slice(0, at))}/${enc(name.slice(at + 1))}`;
  } else path = enc(name);
  return `pkg:${type}/${path}${version !== undefined ? `@${enc(version)}` : ''}`;
}
