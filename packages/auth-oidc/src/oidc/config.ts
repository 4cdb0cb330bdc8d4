import Type, { type Static } from 'typebox';
import { httpUrl, secretPair, type ConfigSection } from '@hub/runtime';

const Role = Type.String({ minLength: 1, maxLength: 64, description: 'A hub role.' });

/** `[auth.oidc]`: single sign-on for the console through an OpenID Provider. Empty (the default): off. */
export const OidcSchema = Type.Object(
  {
    issuer: Type.Optional(
      httpUrl(
        "The OpenID Provider's issuer URL; its discovery document (`<issuer>/.well-known/openid-configuration`) names the endpoints and keys, which must all be on the issuer's own origin. Trusted configuration: reachable on private networks like an upstream.",
        'https://sso.example.com/realms/acme',
      ),
    ),
    display_name: Type.String({
      default: 'single sign-on',
      minLength: 1,
      maxLength: 64,
      description: 'What the console\'s button says after "Sign in with ", e.g. the provider\'s name.',
    }),
    client_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 256, description: 'The client id registered at the provider for hub.' }),
    ),
    ...secretPair('client_secret', 'The client secret registered at the provider (unset: a public client, PKCE only)'),
    scopes: Type.Array(
      Type.String({
        pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$',
        examples: ['groups'],
        errorMessage: 'must be a scope: printable characters without spaces, quotes or backslashes',
        description: 'A scope.',
      }),
      {
        default: ['openid', 'profile', 'email'],
        description:
          'Scopes asked for; must include `openid`. Add the one that carries roles_claim if the provider needs it (often `groups`).',
      },
    ),
    roles_claim: Type.String({
      default: 'groups',
      minLength: 1,
      maxLength: 128,
      description: 'The ID token claim (a list of strings, or one string) whose values role_map maps to hub roles.',
    }),
    role_map: Type.Record(Type.String({ minLength: 1 }), Type.Union([Role, Type.Array(Role)]), {
      default: {},
      description:
        'Claim value -> hub role (or list of roles), e.g. `{ "hub-admins" = "admin", "developers" = "reader" }`. Roles are set at every sign-in; a person with no mapped value is refused.',
    }),
    allowed_email_domains: Type.Optional(
      Type.Array(
        Type.String({
          pattern: '^[A-Za-z0-9.-]+$',
          examples: ['example.com'],
          errorMessage: 'must be a domain like example.com',
          description: 'A domain.',
        }),
        {
          minItems: 1,
          description: 'When set, only people whose verified `email` is in one of these domains may sign in.',
        },
      ),
    ),
    max_session_secs: Type.Integer({
      default: 43200,
      minimum: 1,
      maximum: 604800,
      description:
        'How long a console session opened by single sign-on lasts; then the person signs in again (and gets the roles the provider says then).',
    }),
    redirect_url: Type.Optional(
      httpUrl(
        "The callback URL registered at the provider. Unset: `<public_url>/console/sign-in/oidc/callback` (the request's origin without public_url).",
        'https://hub.example.com/console/sign-in/oidc/callback',
      ),
    ),
  },
  {
    additionalProperties: false,
    default: {},
    description:
      'Single sign-on (OpenID Connect) for the console: authorization code flow with PKCE. Set issuer and client_id to turn it on.',
  },
);

export type OidcConfig = Static<typeof OidcSchema>;

export const oidcSection: ConfigSection<typeof OidcSchema> = {
  section: 'auth.oidc',
  schema: OidcSchema,
  check: (c) => {
    const issues: Array<{ key: string[]; message: string }> = [];
    const on = c.issuer !== undefined || c.client_id !== undefined;
    if (!on) return issues;
    if (c.issuer === undefined)
      issues.push({ key: ['issuer'], message: "missing required key: single sign-on needs the provider's issuer" });
    else if (!URL.canParse(c.issuer))
      issues.push({ key: ['issuer'], message: `is not a valid URL (got ${JSON.stringify(c.issuer)})` });
    if (c.client_id === undefined)
      issues.push({
        key: ['client_id'],
        message: 'missing required key: single sign-on needs the client id registered at the provider',
      });
    if (!c.scopes.includes('openid')) issues.push({ key: ['scopes'], message: 'must include "openid"' });
    if (Object.keys(c.role_map).length === 0)
      issues.push({
        key: ['role_map'],
        message: 'must map at least one claim value to a role (without it nobody could sign in)',
      });
    return issues;
  },
};
