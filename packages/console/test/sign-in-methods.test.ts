import t from 'tap';
import admin from '@hub/admin';
import { definePlugin, errors } from '@hub/runtime';
import { startTestHub } from '@hub/testkit';
import consolePlugin from '../src/index.js';

/**
 * The console's seam for other ways to sign in (ctx.signIns, issue 27): a plugin's method is listed, started and
 * finished under /console/sign-in/<id>; the console opens the session itself; a refusal is a page, escaped.
 */
const pretend = definePlugin({
  id: 'pretend-sso',
  contract: 1,
  description: 'a sign-in method for the test: ?as=<user> signs in, ?refuse=<text> refuses',
  setup(ctx) {
    ctx.signIns.push({
      id: 'pretend',
      label: 'Pretend <SSO>',
      async start(k, callbackUrl) {
        k.redirect(`${callbackUrl}?as=${encodeURIComponent(String(k.query.as ?? 'alice'))}`);
      },
      async finish(k) {
        if (typeof k.query.refuse === 'string') throw errors.forbidden(k.query.refuse);
        const user_id = String(k.query.as);
        await ctx.services.users.create({ id: user_id, roles: ['auditor'] });
        const expires_at = Date.now() + 120_000;
        return { ...(await ctx.services.tokens.issue({ user_id, expires_at })), user_id, expires_at };
      },
    });
  },
});

t.test("a plugin's sign-in method: listed, a session like token sign-in, refusals as escaped pages", async (t) => {
  // The method's plugin is set up before the console: plugin order does not matter.
  const hub = await startTestHub({ dir: t.testdir(), plugins: [pretend, admin, consolePlugin], registries: [] });
  t.teardown(() => hub.close());
  t.same(await (await fetch(`${hub.url}/console/sign-in`)).json(), {
    methods: [{ id: 'pretend', label: 'Pretend <SSO>', url: '/console/sign-in/pretend' }],
  });

  const start = await fetch(`${hub.url}/console/sign-in/pretend?as=carol`, { redirect: 'manual' });
  t.equal(start.status, 302);
  const callback = start.headers.get('location')!;
  t.equal(callback, `${hub.url}/console/sign-in/pretend/callback?as=carol`, "the callback URL is the hub's own");
  const done = await fetch(callback, { redirect: 'manual' });
  t.equal(done.status, 302);
  t.equal(done.headers.get('location'), '/console/');
  const cookie = done.headers.getSetCookie().find((c) => c.startsWith('hub_session='))!;
  t.match(cookie, /HttpOnly/i);
  t.match(cookie, /SameSite=Strict/i);
  const me = await fetch(`${hub.url}/console/session`, { headers: { cookie: cookie.split(';')[0]! } });
  t.match(await me.json(), { user_id: 'carol', roles: ['auditor'], can: { read: true, write: false } });
  const expires = Date.parse(
    (
      (await (await fetch(`${hub.url}/console/session`, { headers: { cookie: cookie.split(';')[0]! } })).json()) as {
        expires_at: string;
      }
    ).expires_at,
  );
  t.ok(expires - Date.now() <= 120_000, 'the session ends with the token it stands for');

  const refused = await fetch(
    `${hub.url}/console/sign-in/pretend/callback?refuse=${encodeURIComponent('<script>alert(1)</script> is not welcome')}`,
  );
  t.equal(refused.status, 403);
  t.match(refused.headers.get('content-type'), /text\/html/);
  t.match(refused.headers.get('content-security-policy'), /script-src 'self'/);
  const page = await refused.text();
  t.notMatch(page, /<script>/);
  t.match(page, /&#60;script&#62;alert\(1\)&#60;\/script&#62; is not welcome/);
  t.equal(refused.headers.getSetCookie().length, 0, 'no session');

  const unknown = await fetch(`${hub.url}/console/sign-in/nobody`);
  t.equal(unknown.status, 404);
  t.match(await unknown.text(), /no sign-in method &#34;nobody&#34;/);
  const rows = await hub.hub.services.accessLog.query({ actions: ['console_sign_in'] }, { limit: 10 });
  t.match(
    rows.map((r) => [r.outcome, r.code, r.user_id]),
    [
      ['denied', 'forbidden', null],
      ['allowed', null, 'carol'],
    ],
  );
});

t.test('without a sign-in method the list is empty', async (t) => {
  const hub = await startTestHub({ dir: t.testdir(), plugins: [admin, consolePlugin], registries: [] });
  t.teardown(() => hub.close());
  t.same(await (await fetch(`${hub.url}/console/sign-in`)).json(), { methods: [] });
});
