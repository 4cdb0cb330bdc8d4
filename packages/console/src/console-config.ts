import Type, { type Static } from 'typebox';
import { httpUrl, type ConfigSection } from '@hub/runtime';

/** `[console]`: where the console is served, when that is not the registries' own origin (docs/decisions/0035). */
export const ConsoleSchema = Type.Object(
  {
    public_url: Type.Optional(
      httpUrl(
        'The origin (scheme://host[:port], no path) browsers reach the console at, when it has its own host name in front of hub (the recommended deployment: artifacts and the console never share an origin). Set: the console pages, sign-in and session answer only on that host (404 on others), the session cookie and every admin request signed in by it are refused on any other host, `Origin` must equal it, and an https origin makes the cookie `Secure` and sends HSTS. Unset: the console is served on whatever host the request names, and `Origin` must be that host (or `[server] public_url`).',
        'https://hub-console.example',
      ),
    ),
  },
  { additionalProperties: false, default: {}, description: 'The web console (`@hub/console`).' },
);
export type ConsoleConfig = Static<typeof ConsoleSchema>;

export const consoleSection: ConfigSection<typeof ConsoleSchema> = {
  section: 'console',
  schema: ConsoleSchema,
  check(value) {
    if (value.public_url === undefined) return [];
    const url = new URL(value.public_url);
    if (
      (url.pathname !== '/' && url.pathname !== '') ||
      url.search !== '' ||
      url.hash !== '' ||
      url.username !== '' ||
      url.password !== ''
    )
      return [
        {
          key: ['public_url'],
          message: 'must be an origin, scheme://host[:port], without a path: the console is always at /console/',
        },
      ];
    return [];
  },
};
