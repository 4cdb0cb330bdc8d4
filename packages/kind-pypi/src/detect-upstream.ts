import type { DetectUpstream } from '@hub/contract';

/**
 * pip's index: `pip config list` prints every setting pip reads, with where it came from
 * (`global.index-url='...'` from pip.conf, `:env:.index-url='...'` from PIP_INDEX_URL); the environment
 * wins, as it does for pip. Without pip on the PATH, the user's pip.conf files are read directly.
 */
export const detectUpstream: DetectUpstream = async ({ run, readHomeFile }) => {
  for (const [cmd, args] of [
    ['pip', ['config', 'list']],
    ['python3', ['-m', 'pip', 'config', 'list']],
  ] as const) {
    const out = await run(cmd, [...args]);
    if (out === null) continue;
    const found = fromConfigList(out);
    if (found)
      return { upstream: found.url, source: found.env ? 'PIP_INDEX_URL (pip config list)' : 'pip config list' };
  }
  for (const file of [
    ['.config', 'pip', 'pip.conf'],
    ['.pip', 'pip.conf'],
  ]) {
    const text = await readHomeFile(...file);
    const url = text === null ? null : indexUrlOfIni(text);
    if (url) return { upstream: url, source: `~/${file.join('/')}` };
  }
  return null;
};

/** `<section>.index-url='<url>'` lines; the `:env:` one first. */
export function fromConfigList(out: string): { url: string; env: boolean } | null {
  let found: { url: string; env: boolean } | null = null;
  for (const line of out.split(/\r?\n/)) {
    const m = /^([^=\s]*)\.index-url\s*=\s*(['"]?)(.*)\2\s*$/.exec(line.trim());
    if (!m || !/^https?:\/\//i.test(m[3]!)) continue;
    const env = m[1] === ':env:';
    if (!found || (env && !found.env)) found = { url: m[3]!, env };
  }
  return found;
}

/** `index-url` of the `[global]` (else `[install]`/`[download]`) section of a pip.conf. */
export function indexUrlOfIni(text: string): string | null {
  let section = '';
  const bySection = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const s = /^\[([^\]]+)\]$/.exec(line);
    if (s) {
      section = s[1]!.trim().toLowerCase();
      continue;
    }
    const kv = /^(index[-_]url)\s*[=:]\s*(\S+)/i.exec(line);
    if (kv && /^https?:\/\//i.test(kv[2]!) && !bySection.has(section)) bySection.set(section, kv[2]!);
  }
  return bySection.get('global') ?? bySection.get('install') ?? bySection.get('download') ?? null;
}
