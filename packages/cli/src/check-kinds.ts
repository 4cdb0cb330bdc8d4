/**
 * The kinds `hub check` offers: every kind of the default distribution, then the kind packages the
 * hub.toml's `[plugins] load` names (so a third party's kind is checked like ours), each only when it
 * carries a `clientCheck` hook. Only kind packages are imported: no hub starts, no database opens.
 */
import fs from 'node:fs';
import type { AnyPlugin, ClientCheck } from '@hub/runtime';
import { parse as parseToml } from 'smol-toml';
import { readCatalogue } from './plugins.js';

export interface CheckableKind {
  /** The kind id: `--<id> NAME` names a registry of this kind. */
  id: string;
  check: ClientCheck<unknown>;
  /** The check's coordinate from the option's text: its own `parse`, or the kind's codec with a version required. */
  parse(text: string): unknown;
}

/** Options hub check takes itself; a kind's options must not take them over. */
const RESERVED = new Set(['url', 'token', 'json', 'help', 'config']);
const OPTION = /^[a-z][a-z0-9-]{0,63}$/;

/** `--config FILE` / `-c FILE` / `--config=FILE` in argv, before the full parse (which needs the kinds). */
export function configFlag(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return undefined;
    if (a === '--config' || a === '-c') return argv[i + 1];
    if (a.startsWith('--config=')) return a.slice('--config='.length);
  }
  return undefined;
}

/** `[plugins] load` of the hub.toml named by --config, else $HUB_CONFIG, else ./hub.toml when present. */
function configuredPackages(flag: string | undefined, env: NodeJS.ProcessEnv): string[] {
  const file = flag ?? env.HUB_CONFIG ?? (fs.existsSync('hub.toml') ? 'hub.toml' : undefined);
  if (file === undefined) return [];
  let load: unknown;
  try {
    load = (parseToml(fs.readFileSync(file, 'utf8')) as { plugins?: { load?: unknown } }).plugins?.load;
  } catch (e) {
    throw new Error(`cannot read [plugins] load from ${file}: ${(e as Error).message}`);
  }
  if (load === undefined) return [];
  if (!Array.isArray(load) || !load.every((p) => typeof p === 'string'))
    throw new Error(`${file}: [plugins] load must be a list of package names`);
  return load;
}

async function importPlugin(name: string, from: string): Promise<AnyPlugin> {
  try {
    return ((await import(name)) as { default: AnyPlugin }).default;
  } catch (e) {
    throw new Error(`${from}: cannot load "${name}": ${(e as Error).message}`);
  }
}

/** The checkable kinds in catalogue order, then in `[plugins] load` order. */
export async function checkableKinds(
  configFlagValue: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<CheckableKind[]> {
  const packages: Array<[name: string, from: string]> = readCatalogue()
    .plugins.filter((p) => p.default && p.role === 'kind')
    .map((p) => [p.package, 'plugins-registry.json']);
  for (const name of configuredPackages(configFlagValue, env)) packages.push([name, '[plugins] load']);
  return checkable(await Promise.all(packages.map(([name, from]) => importPlugin(name, from))));
}

/** The kinds among `plugins` that carry a client check, in order; throws when a hook is malformed or its options clash. */
export function checkable(plugins: readonly AnyPlugin[]): CheckableKind[] {
  const out: CheckableKind[] = [];
  const taken = new Map<string, string>();
  for (const p of plugins) {
    if (p?.role !== 'kind' || p.clientCheck === undefined) continue;
    const check = p.clientCheck as ClientCheck<unknown>;
    const twice = out.find((k) => k.id === p.id);
    if (twice?.check === check) continue; // [plugins] load named a default kind again
    if (twice) throw new Error(`two kinds "${p.id}" are loaded`);
    if (
      (check.parse !== undefined && typeof check.parse !== 'function') ||
      typeof check.run !== 'function' ||
      typeof check.fallback !== 'string' ||
      typeof check.form !== 'string' ||
      !Array.isArray(check.help)
    )
      throw new Error(
        `kind "${p.id}": clientCheck needs option, form, fallback, help and run (and parse, if any, a function)`,
      );
    for (const option of [p.id, check.option]) {
      if (typeof option !== 'string' || !OPTION.test(option))
        throw new Error(
          `kind "${p.id}": "${String(option)}" cannot be a hub check option (lower-case letters, digits and dashes)`,
        );
      const owner = RESERVED.has(option) ? 'hub check' : taken.get(option);
      if (owner !== undefined) throw new Error(`kind "${p.id}": --${option} is already an option of ${owner}`);
      taken.set(option, `kind "${p.id}"`);
    }
    const { coordinate } = p;
    const parse =
      check.parse?.bind(check) ??
      ((text: string) => {
        const c = coordinate.parse(text);
        return c?.version ? c : `${check.form}, such as ${check.fallback}`;
      });
    out.push({ id: p.id, check, parse });
  }
  return out;
}
