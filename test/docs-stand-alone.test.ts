/**
 * The repository's docs and comments stand alone: they point at files in the repository (docs/*.md, a
 * package README, a decision), never at specification documents kept somewhere else. This fails when a
 * citation of such a document, by file name or by section number, comes back into a tracked file.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const root = fileURLToPath(new URL('../..', import.meta.url));
const self = 'test/docs-stand-alone.test.ts';

// The names are joined here so this file does not cite them itself.
const NAMES = ['SP' + 'EC', 'INTER' + 'FACE', 'PROTO' + 'COLS', 'RELIA' + 'BILITY', 'ST' + 'YLE', 'PERFOR' + 'MANCE'];
const CITATION = new RegExp(
  [
    `\\b(${NAMES.join('|')})\\.md\\b`, // a file name
    `\\b(${NAMES.slice(0, 3).join('|')})('s)?\\b(?!_)`, // "SP·EC 4.1", "INTER·FACE section 3", "the SP·EC's string"
    `\\b[Tt]he ${'sp' + 'ec'}\\b`, // "the sp·ec", unnamed
    `\\b${'sp' + 'ec'} §`,
  ].join('|'),
);

/** Tracked text files, as git lists them (node_modules and dist are never tracked). */
function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter(
      (f) =>
        f &&
        f !== self &&
        f !== 'package-lock.json' &&
        !/(^|\/)(node_modules|dist)\//.test(f) &&
        !/\.(png|jpg|gif|ico|gz|tgz|zip|jar|whl|nupkg|gem|crate|vsix|woff2?)$/.test(f),
    );
}

t.test('the pattern catches the citations it is meant to', async (t) => {
  for (const cited of [
    `see ${NAMES[0]}.md`,
    `(${NAMES[1]}.md section 5)`,
    `${NAMES[0]} 4.1`,
    `as ${NAMES[2]}.md 8c says`,
    `the ${NAMES[0]}'s signed string`,
    `${NAMES[4]}.md`,
    `as the ${'sp' + 'ec'} says`,
  ])
    t.match(cited, CITATION, cited);
  for (const fine of [
    'const GEM_SPEC = 1',
    'INTERFACE_ROUTES',
    'the SPDX specification requires',
    'a MetadataSpec',
    'docs/errors.md',
  ])
    t.notMatch(fine, CITATION, fine);
});

t.test('no tracked file cites a specification document outside the repository', async (t) => {
  const files = trackedFiles();
  t.ok(files.length > 500, `${files.length} tracked files read`);
  const found: string[] = [];
  for (const f of files) {
    const full = path.join(root, f);
    let text: string;
    try {
      const bytes = fs.readFileSync(full);
      if (bytes.includes(0)) continue; // binary
      text = bytes.toString('utf8');
    } catch {
      continue; // deleted in the work tree
    }
    text.split('\n').forEach((line, i) => {
      if (CITATION.test(line)) found.push(`${f}:${i + 1}: ${line.trim().slice(0, 160)}`);
    });
  }
  t.same(found, [], 'cite docs/*.md, a package README or a decision instead');
});
