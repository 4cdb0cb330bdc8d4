import t from 'tap';
import { CONSOLE_ACTIONS } from '../src/actions.js';
import { setup } from './setup.js';

/** Each console action is one admin route that the default plugins mount (the lead's parity test adds the CLI side). */
t.test('every console action names a mounted admin route', async (t) => {
  const s = await setup(t);
  const names = new Set<string>();
  for (const a of CONSOLE_ACTIONS) {
    t.notOk(names.has(a.action), `${a.action} is listed once`);
    names.add(a.action);
    t.match(a.path, /^\/api\/v1\/admin\//, a.action);
    const path = a.path.replace(/:[a-z_]+/g, 'x');
    const res = await fetch(`${s.url}${path}`, {
      method: a.method,
      headers: {
        authorization: `Bearer ${s.adminToken}`,
        ...(a.method === 'POST' ? { 'content-type': 'application/json' } : {}),
      },
      body: a.method === 'POST' ? '{}' : undefined,
    });
    const text = await res.text();
    t.notMatch(text, /no route for/, `${a.action}: ${a.method} ${a.path} is a route`);
  }
});
