/**
 * Parity (issue 14): every admin API route has a CLI command that calls it, and every route a CLI command
 * declares is a mounted route. Routes come from the OpenAPI document of the default distribution (built
 * from what the plugins mount); commands from the CLI's own table, where each declares the routes it calls.
 * The console's actions (packages/console/src/actions.ts) must each be a mounted route a CLI command also calls.
 */
import t from 'tap';
import { CONSOLE_ACTIONS } from '@hub/console/actions';
import { COMMANDS, commandRoutes, openApiReference } from '../src/index.js';

/** Routes no person runs, so no command is owed (each with why). */
const MACHINE_ONLY = new Set([
  // A flag source's signed push and lift: machines with the source's secret, not an admin's token.
  'POST /api/v1/flags/{source}',
  'DELETE /api/v1/flags/{source}/{external_id}',
]);

/** Commands that call no admin route (each with why). */
const NOT_ADMIN_API = new Set([
  'serve', // runs the server
  'migrate', // migrates the database directly
  'init', // writes hub.toml from this machine's package managers
  'check', // the conformance checker: calls registry routes under /proxy/, as package managers do
  'login', // single sign-on: calls /api/v1/auth/device (the identity plugin's, not the admin API)
]);

const doc = JSON.parse(await openApiReference()) as { paths: Record<string, Record<string, unknown>> };
const routes = new Set(
  Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)),
);
const commands = commandRoutes(COMMANDS);
const toDoc = (r: string) => r.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');

t.test('the tables are read', async (t) => {
  t.ok(routes.size > 30, `${routes.size} routes`);
  t.ok(commands.length > 30, `${commands.length} commands`);
  t.ok(
    commands.some((c) => c.name === 'packages show'),
    'groups are expanded',
  );
});

t.test('every admin route has a CLI command', async (t) => {
  const called = new Set(commands.flatMap((c) => c.routes.map(toDoc)));
  const owed = [...routes].filter((r) => !called.has(r) && !MACHINE_ONLY.has(r));
  t.same(owed, [], 'routes without a command (add one, or add the route to MACHINE_ONLY with why)');
  for (const r of MACHINE_ONLY) t.ok(routes.has(r), `${r} (allow-listed) still exists`);
});

t.test('every CLI command calls mounted admin routes', async (t) => {
  for (const c of commands) {
    if (NOT_ADMIN_API.has(c.name)) {
      t.same(c.routes, [], `${c.name} calls no admin route`);
      continue;
    }
    t.ok(c.routes.length > 0, `${c.name} declares the routes it calls`);
    for (const r of c.routes) t.ok(routes.has(toDoc(r)), `${c.name}: ${r} is a mounted route`);
  }
});

t.test('every console action is one mounted admin route that a CLI command also calls', async (t) => {
  const called = new Set(commands.flatMap((c) => c.routes.map(toDoc)));
  for (const a of CONSOLE_ACTIONS) {
    const r = `${a.method} ${toDoc(a.path)}`;
    t.ok(routes.has(r), `${a.action}: ${r} is a mounted route`);
    t.ok(called.has(r), `${a.action}: ${r} has a CLI command`);
  }
});
