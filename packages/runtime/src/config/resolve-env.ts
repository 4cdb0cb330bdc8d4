/** `*_env` secrets: hub.toml names an environment variable, and loading puts its value in the key. */
import type { Issues } from './issues.js';
import { isTable, type KeyPath } from './toml-source.js';

/**
 * Every `<key>_env` names an environment variable whose value becomes `<key>` (a list of names, a list
 * of values). Generic on purpose:
 * a kind's own `*_env` keys get the same treatment with no code in the kind.
 */
export function resolveEnv(issues: Issues, env: NodeJS.ProcessEnv, node: unknown, path: KeyPath): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => resolveEnv(issues, env, item, [...path, i]));
    return;
  }
  if (!isTable(node)) return;
  for (const key of Object.keys(node)) {
    const value = node[key];
    // A registry's `extra` is walked on its own, with key paths as written in the file (no `extra`).
    if (key === 'extra' && path.length === 2 && path[0] === 'registries') continue;
    const names =
      typeof value === 'string'
        ? [value]
        : Array.isArray(value) && value.every((v) => typeof v === 'string')
          ? value
          : undefined;
    if (key.endsWith('_env') && key.length > 4 && names !== undefined) {
      const target = key.slice(0, -4);
      const unset = names.find((v) => env[v] === undefined || env[v] === '');
      if (node[target] !== undefined) issues.add([...path, key], `give ${target} or ${key}, not both`);
      else if (unset !== undefined) issues.add([...path, key], `environment variable ${unset} is not set`);
      // A list of names (e.g. `previous_secrets_env`) becomes the list of their values.
      else node[target] = typeof value === 'string' ? env[value] : names.map((v) => env[v]);
    } else {
      resolveEnv(issues, env, value, [...path, key]);
    }
  }
}
