/**
 * A project page as hub serves it, in the form negotiated: every file URL points at hub
 * (`<base>/files/<project>/<file>`), with the upstream's hashes, `requires-python`, yank and PEP 658
 * metadata marks kept. A version a block refuses comes yanked with the block's message (decision 0040). Text from the upstream is escaped for HTML (and JSON-encoded for JSON).
 */
import { escapeHtml } from './html.js';
import type { Form } from './negotiate.js';
import { canonicalVersion } from './pep440.js';
import type { Hashes, ProjectFile } from './project-page.js';

/** The hub URL of a file of `project`. */
export const fileHref = (baseUrl: string, project: string, filename: string): string =>
  `${baseUrl}/files/${encodeURIComponent(project)}/${encodeURIComponent(filename)}`;

const hashText = (h: Hashes): string | null => {
  const name = h.sha256 ? 'sha256' : Object.keys(h).sort()[0];
  return name ? `${name}=${h[name]}` : null;
};

/** Where a page's file link points: hub's URL of the file, or (a group's merged page) the URL its member wrote. */
type HrefOf = (f: ProjectFile) => string;

function htmlPage(project: string, files: readonly ProjectFile[], href: HrefOf): string {
  const name = escapeHtml(project);
  const links = files.map((f) => {
    const frag = hashText(f.hashes);
    const attrs = [`href="${escapeHtml(href(f) + (frag ? `#${frag}` : ''))}"`];
    if (f.requiresPython) attrs.push(`data-requires-python="${escapeHtml(f.requiresPython)}"`);
    if (f.yanked !== null) attrs.push(`data-yanked="${escapeHtml(f.yanked)}"`);
    if (f.metadata) {
      const meta = escapeHtml(hashText(f.metadata.hashes) ?? 'true');
      attrs.push(`data-dist-info-metadata="${meta}"`, `data-core-metadata="${meta}"`);
    }
    return `    <a ${attrs.join(' ')}>${escapeHtml(f.filename)}</a><br />\n`;
  });
  return (
    '<!DOCTYPE html>\n<html>\n  <head>\n    <meta name="pypi:repository-version" content="1.1">\n' +
    `    <title>Links for ${name}</title>\n  </head>\n  <body>\n    <h1>Links for ${name}</h1>\n${links.join('')}  </body>\n</html>\n`
  );
}

function jsonPage(project: string, files: readonly ProjectFile[], href: HrefOf): string {
  // One entry per version, in the spelling of its first file (`1.0` and `1.0.0` are one version).
  const versions = new Map<string, string>();
  for (const f of files)
    if (!versions.has(canonicalVersion(f.version))) versions.set(canonicalVersion(f.version), f.version);
  // 1.1 (PEP 700) makes `size` mandatory: claimed only when every file has one (an HTML upstream gives none).
  return JSON.stringify({
    meta: { 'api-version': files.every((f) => f.size !== undefined) ? '1.1' : '1.0' },
    name: project,
    versions: [...versions.values()],
    files: files.map((f) => ({
      filename: f.filename,
      url: href(f),
      hashes: f.hashes,
      ...(f.requiresPython ? { 'requires-python': f.requiresPython } : {}),
      yanked: f.yanked === null ? false : f.yanked || true,
      // PEP 714: only `core-metadata`. pip 22.3 to 23.1 (Debian 12 ships 23.0.1) crash on the older
      // `dist-info-metadata` key in JSON; the HTML form keeps both attributes, which every pip reads.
      'core-metadata': f.metadata ? (Object.keys(f.metadata.hashes).length ? f.metadata.hashes : true) : false,
      ...(f.size !== undefined ? { size: f.size } : {}),
      ...(f.uploadTime ? { 'upload-time': f.uploadTime.toISOString() } : {}),
    })),
  });
}

/**
 * `hrefOf` (a group's merged page, decision 0053): each file keeps the URL its member's page gave it (a hub URL
 * the member rendered with the group's base URL). Default: hub's URL of the file below `baseUrl`.
 */
export function renderPage(
  form: Form,
  project: string,
  files: readonly ProjectFile[],
  baseUrl: string,
  hrefOf?: HrefOf,
): Buffer {
  const href = hrefOf ?? ((f: ProjectFile) => fileHref(baseUrl, project, f.filename));
  return Buffer.from(form === 'json' ? jsonPage(project, files, href) : htmlPage(project, files, href), 'utf8');
}
