/**
 * The access vocabulary has one spelling (@hub/contract, src/access.ts): no other source file writes out
 * a list of permissions or of the built-in roles, in code (`['source:read', 'source:write']`, a union
 * type) or in prose (`admin, reader, publisher`). A new copy fails here; import the contract's instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { BUILT_IN_ROLES, PERMISSIONS } from '@hub/runtime';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const HOME = path.join('packages', 'contract', 'src', 'access.ts');

const alt = (words: readonly string[]) => words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
const permission = alt(PERMISSIONS);
const role = alt(BUILT_IN_ROLES);
/** Two of a vocabulary's words next to each other: quoted and joined by `,` or `|`, or a prose list. */
const COPIES = [
  new RegExp(`['"\`](${permission})['"\`]\\s*[,|]\\s*['"\`](${permission})['"\`]`),
  new RegExp(`['"\`](${role})['"\`]\\s*[,|]\\s*['"\`](${role})['"\`]`),
  new RegExp(`\\b(${permission}),? (${permission})\\b`),
  new RegExp(`\\b(${role}), (${role}), (${role})\\b`),
];

function* sources(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist' || e.name === 'test' || e.name === 'fixtures') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    // Generated files (the console's API types) are rendered from the contract's values, not written by hand.
    else if (/\.(ts|tsx|mjs)$/.test(e.name) && !/\.(d|generated)\.ts$/.test(e.name)) yield p;
  }
}

t.test('no source file but @hub/contract access.ts lists permissions or built-in roles', async (t) => {
  const files = ['packages', 'examples', 'scripts'].flatMap((d) => [...sources(path.join(root, d))]);
  t.ok(files.length > 100, `the walk found the sources (${files.length} files)`);
  const copies: string[] = [];
  for (const file of files) {
    const rel = path.relative(root, file);
    if (rel === HOME) continue;
    fs.readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => COPIES.some((re) => re.test(line)) && copies.push(`${rel}:${i + 1}: ${line.trim()}`));
  }
  t.same(copies, [], 'hand-written copies');
});

t.test('the check finds a copy when there is one', async (t) => {
  t.ok(COPIES.some((re) => re.test("const PERMISSIONS = ['source:read', 'source:write'];")));
  t.ok(COPIES.some((re) => re.test("type Permission = 'system:read' | 'system:write';")));
  t.ok(COPIES.some((re) => re.test('its roles (built in: admin, reader, publisher, auditor)')));
  t.notOk(COPIES.some((re) => re.test("permission: 'source:read',")));
});
