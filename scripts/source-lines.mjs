// Lines of source under a folder: lines that hold code, found by TypeScript's own parser, so comments,
// blank lines and comment-like text inside strings are told apart exactly (cloc takes a `/*` in a string
// for a comment). Usage: node scripts/source-lines.mjs packages/runtime/src [top N files]
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const [dir = 'packages/runtime/src', top = '0'] = process.argv.slice(2);
const isJsDoc = (k) => k >= ts.SyntaxKind.FirstJSDocNode && k <= ts.SyntaxKind.LastJSDocNode;

function codeLines(file) {
  const text = fs.readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines = new Set();
  const visit = (node) => {
    if (isJsDoc(node.kind) || node.kind === ts.SyntaxKind.EndOfFileToken) return;
    const children = node.getChildren(sf);
    if (children.length > 0) return children.forEach(visit);
    const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
    const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
    for (let l = first; l <= last; l++) lines.add(l);
  };
  visit(sf);
  return lines.size;
}

const files = fs
  .readdirSync(dir, { recursive: true })
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .map((f) => path.join(dir, f));
const counts = files.map((f) => [codeLines(f), f]).sort((a, b) => b[0] - a[0]);
for (const [n, f] of counts.slice(0, Number(top))) console.log(String(n).padStart(6), f);
console.log(`${counts.reduce((s, [n]) => s + n, 0)} lines of source in ${files.length} files under ${dir}`);
