/**
 * Which requests come from an npm-registry client (npm, pnpm, yarn 1 and 2+, bun, deno) rather than a plain
 * downloader (curl, wget, a browser, a script): decision 0041. The client sees metadata where a downloader
 * gets the download route's tarball, and error bodies it can print.
 */
type Headers = Readonly<Record<string, string | undefined>>;

/**
 * `npm/…`, `pnpm/…`, `yarn/…` (yarn 1), `bun/…`, `deno/…`; yarn 2 and later send their HTTP library's default
 * (`got (https://…)`) and no Accept, so that default counts as yarn's.
 */
const CLIENT_AGENT = /^(?:npm|pnpm|yarn|bun|deno)\/|^got \(/i;

/** Headers only npm's own fetch stack sends (npm-registry-fetch, pacote). */
const CLIENT_HEADERS = ['npm-command', 'npm-session', 'npm-auth-type', 'pacote-req-type'] as const;

export function isRegistryClient(headers: Headers): boolean {
  if (CLIENT_HEADERS.some((h) => headers[h] !== undefined)) return true;
  return CLIENT_AGENT.test(headers['user-agent'] ?? '');
}

/** pacote asking for a tarball by URL (`npm install <url>`): the download, whatever else the request says. */
export const wantsTarball = (headers: Headers): boolean => headers['pacote-req-type'] === 'tarball';
