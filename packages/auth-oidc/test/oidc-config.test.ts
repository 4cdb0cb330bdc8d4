import t from 'tap';
import { pluginConfigLoader } from '@hub/testkit';
import oidc from '../src/index.js';

const { load, errorOf } = pluginConfigLoader(oidc);

const section = (extra = '') =>
  `[auth.oidc]\nissuer = "https://sso.example.com/realms/acme"\nclient_id = "hub"\nclient_secret_env = "S"\nrole_map = { "hub-admins" = "admin", developers = ["reader", "auditor"] }\n${extra}`;

t.test('[auth.oidc] is off when empty, and defaulted when on', async (t) => {
  t.same(load('').sections['auth.oidc'], {
    display_name: 'single sign-on',
    scopes: ['openid', 'profile', 'email'],
    roles_claim: 'groups',
    role_map: {},
    max_session_secs: 43200,
  });
  t.match(load(section(), { S: 'secret' }).sections['auth.oidc'], {
    issuer: 'https://sso.example.com/realms/acme',
    client_id: 'hub',
    client_secret: 'secret',
    role_map: { developers: ['reader', 'auditor'] },
  });
});

t.test('errors name the key inside [auth] and its line', async (t) => {
  t.equal(
    errorOf('[auth.oidc]\nissuer = "https://sso.example.com"\nrole_map = { a = "admin" }\n'),
    'hub.toml:1: auth.oidc.client_id: missing required key: single sign-on needs the client id registered at the provider',
  );
  t.match(
    errorOf(section('scopes = ["profile"]\n'), { S: 'x' }),
    /hub\.toml:6: auth\.oidc\.scopes: must include "openid"/,
  );
  t.match(
    errorOf(section().replace(/role_map = .*\n/, ''), { S: 'x' }),
    /auth\.oidc\.role_map: must map at least one claim value to a role/,
  );
  t.match(errorOf(section()), /auth\.oidc\.client_secret_env: environment variable S is not set/);
  t.match(errorOf(section('max_session_secs = 0\n'), { S: 'x' }), /auth\.oidc\.max_session_secs: must be >= 1/);
  t.match(errorOf(section('scopes = ["openid", "a b"]\n'), { S: 'x' }), /auth\.oidc\.scopes\[1\]: must be a scope/);
});
