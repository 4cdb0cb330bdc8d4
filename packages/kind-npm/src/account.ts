/**
 * `npm ping`, `npm whoami`, and `npm login` / `npm adduser`, which hub refuses with how to get a token
 * instead (decision 0042).
 */
import { errors, HubError, reply, type KindRoute, type RequestContext } from '@hub/contract';

const json = (doc: unknown) => reply.json(doc, 200, { 'cache-control': 'no-store' });

/** GET /-/ping: npm prints PONG for any 200. Open to anyone, like a health check: it says nothing about packages. */
const ping: KindRoute = {
  id: 'ping',
  permission: null,
  match: (s) => (s.length === 2 && s[0] === '-' && s[1] === 'ping' ? {} : null),
  handle: async () => json({}),
};

/** GET /-/whoami: the token's user; 401 for a request without one (npm then says it is not logged in). */
const whoami: KindRoute = {
  id: 'whoami',
  match: (s) => (s.length === 2 && s[0] === '-' && s[1] === 'whoami' ? {} : null),
  async handle(rc) {
    if (rc.user === null)
      throw errors.unauthenticated('no token was sent: npm whoami needs an _authToken for this registry in .npmrc');
    return json({ username: rc.user });
  },
};

/** The refusal, naming the exact .npmrc line for this registry when the request's host is one hub serves. */
function loginRefusal(rc: RequestContext): string {
  let key = '//<host>/proxy/<registry>/';
  try {
    key = `${rc.baseUrl.replace(/^https?:/, '')}/`;
  } catch {
    // a Host hub does not serve: the placeholder
  }
  return `hub does not issue tokens through npm login: ask an admin for one (\`hub token create --user <you>\`, or the console), then add the line ${key}:_authToken=<token> to .npmrc`;
}

/**
 * POST /-/v1/login (npm's web login) and PUT /-/user/org.couchdb.user:<name> (the password login it falls back
 * to): 405, saying how to get a token. Open to anyone, since the client has no token yet.
 */
const login: KindRoute = {
  id: 'login',
  methods: ['POST', 'PUT'],
  permission: null,
  match(s) {
    if (s.length === 3 && s[0] === '-' && s[1] === 'v1' && s[2] === 'login') return {};
    if (s.length === 3 && s[0] === '-' && s[1] === 'user' && s[2]!.startsWith('org.couchdb.user:')) return {};
    return null;
  },
  handle: async (rc) => {
    throw new HubError('method_not_allowed', loginRefusal(rc));
  },
};

/**
 * Any other `-/…` path but `-/package/…` (dist-tags): npm's account, token, team and org commands, which hub
 * does not serve. A plain 404 that says so, rather than a refusal of `-` as a package name.
 */
const unsupported: KindRoute = {
  id: 'npm-unsupported',
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
  permission: null,
  match: (s) =>
    s[0] === '-' && s.length > 1 && s[1] !== 'package' ? { params: { what: s.slice(0, 3).join('/') } } : null,
  handle: async (rc, m) => {
    throw errors.notFound(
      `hub does not serve npm's /${m.params!.what!.slice(0, 100)}/… requests (see the npm kind's README for what it serves)`,
    );
  },
};

/** Before the package routes, which would refuse `-` as a name; `unsupported` after every other `-/…` route. */
export const accountRoutes: readonly KindRoute[] = [ping, whoami, login];
export const unsupportedRoutes: readonly KindRoute[] = [unsupported];
