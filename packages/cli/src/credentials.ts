/**
 * Hub tokens `hub login` stored, per hub URL, in the user's config (`$XDG_CONFIG_HOME/hub/credentials.json`, else
 * `~/.config/hub/credentials.json`), readable by the user only. Only hub tokens are kept: never an ID token.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface StoredCredential {
  token: string;
  user_id: string;
  expires_at: string;
}

export function credentialsFile(env: NodeJS.ProcessEnv): string | undefined {
  const base = env.XDG_CONFIG_HOME || (env.HOME ? path.join(env.HOME, '.config') : undefined);
  return base === undefined ? undefined : path.join(base, 'hub', 'credentials.json');
}

function readAll(file: string): Record<string, StoredCredential> {
  try {
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return doc && typeof doc === 'object' ? (doc as Record<string, StoredCredential>) : {};
  } catch {
    return {};
  }
}

/** The stored token for a hub, unless it has expired. */
export function storedToken(env: NodeJS.ProcessEnv, url: string): string | undefined {
  const file = credentialsFile(env);
  if (file === undefined) return undefined;
  const c = readAll(file)[url];
  if (!c || typeof c.token !== 'string' || !(Date.parse(c.expires_at) > Date.now())) return undefined;
  return c.token;
}

/** Stores a hub's token (mode 0600, written to a temporary file and renamed). */
export function storeToken(env: NodeJS.ProcessEnv, url: string, c: StoredCredential): string {
  const file = credentialsFile(env);
  if (file === undefined) throw new Error('neither XDG_CONFIG_HOME nor HOME is set: nowhere to store the token');
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const all = readAll(file);
  all[url] = c;
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return file;
}
