/**
 * Group registries (decision 0053): the project page merged from the members' pages. A file counts once,
 * from the first member that lists its file name, with that member's URL, hashes, yank, `requires-python`,
 * core-metadata marks and upload time. The members rendered their pages with the group's URL, so every file
 * URL already points at the group; the merged page is rendered again in the form the client negotiated.
 */
import crypto from 'node:crypto';
import { errors, reply, type GroupMerge, type GroupPart, type RequestContext } from '@hub/contract';
import { CONTENT_TYPE, negotiate } from './negotiate.js';
import { checkPage, parsePage, type ProjectFile } from './project-page.js';
import { renderPage } from './render.js';

/** The files of the members' pages, first member first; malformed pages are logged and left out. */
export function mergeFiles(rc: RequestContext, project: string, parts: readonly GroupPart[]): ProjectFile[] | null {
  const byName = new Map<string, ProjectFile>();
  let valid = 0;
  for (const p of parts) {
    const type = p.headers['content-type'];
    const why = checkPage(project, p.body, type);
    if (why) {
      rc.log.warn({ member: p.member, why }, 'group merge: a member sent a malformed project page; left out');
      continue;
    }
    valid++;
    for (const f of parsePage(project, p.body, type, `${rc.baseUrl}/simple/${encodeURIComponent(project)}/`).files)
      if (!byName.has(f.filename)) byName.set(f.filename, f);
  }
  return valid ? [...byName.values()] : null;
}

export const mergeProjectPage: GroupMerge = (rc, parts, match) => {
  const project = match.coordinate!.name;
  const files = mergeFiles(rc, project, parts);
  if (!files) throw errors.upstream(`no member of the group sent a valid project page for ${project}`);
  const form = negotiate(rc.headers.accept);
  // Each file keeps the URL its member wrote: a hub URL the member rendered with the group's base URL.
  const body = renderPage(form, project, files, rc.baseUrl, (f) => f.url);
  return reply.bytes(body, CONTENT_TYPE[form], {
    vary: 'Accept',
    etag: `"${crypto.createHash('sha256').update(body).digest('hex').slice(0, 40)}"`,
    'cache-control': 'max-age=0, must-revalidate',
    'content-disposition': 'inline',
  });
};
