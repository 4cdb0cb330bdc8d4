/**
 * A pushed `.gem`, read before anything is stored: a plain tar of `metadata.gz` (the gemspec as Psych
 * YAML, read with gemspec-yaml's alias cap), `data.tar.gz` and `checksums.yaml.gz`. What hub keeps of
 * it (`GemMeta`) is what the compact index line and the Marshal gemspec are generated from. Every
 * string that reaches an index line is checked here, since the compact index's separators (` ,:&|`)
 * must never come from a gem.
 */
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { errors, findInTar, gunzipCapped, isArchiveError } from '@hub/contract';
import { isNode, list, readSpec, versionText, type Node } from './gemspec-yaml.js';
import { isGemName, isVersionToken } from './names.js';

/** `[op, version]` pairs, as Gem::Requirement keeps them. */
export type Requirement = [string, string][];

export interface GemDependency {
  name: string;
  requirement: Requirement;
  type: 'runtime' | 'development';
}

/** What a published version keeps (`LocalVersion.meta`). */
export interface GemMeta {
  name: string;
  version: string;
  platform: string;
  /** sha256 of the .gem. */
  sha256: string;
  dependencies: GemDependency[];
  requiredRuby: Requirement;
  requiredRubygems: Requirement;
  summary: string;
  description: string;
  authors: string[];
  email: string | string[] | null;
  homepage: string | null;
  licenses: string[];
  metadata: Record<string, string>;
  /** `YYYY-MM-DD`. */
  date: string;
  rubygemsVersion: string;
  specificationVersion: number;
}

/** Gem::Version's pattern, as a built gem writes it (a `-` became `.pre.` at build time). */
const VERSION = /^[0-9]+(?:\.[0-9A-Za-z]+)*$/;
/** A requirement's version may keep Gem::Version's `-` form. */
const REQ_VERSION = /^[0-9]+(?:\.[0-9A-Za-z]+)*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
const OPS = new Set(['=', '!=', '>', '<', '>=', '<=', '~>']);
const MAX_DEPENDENCIES = 1000;
/** The largest metadata.gz hub inflates (real ones are a few KiB). */
const MAX_METADATA_BYTES = 1024 * 1024;

const bad = (why: string) => errors.badRequest(`not a valid gem: ${why}`);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function requirement(v: unknown, what: string): Requirement {
  const reqs = list(isNode(v) ? v.requirements : undefined);
  if (reqs.length > 100) throw bad(`${what} has too many requirements`);
  const out: Requirement = reqs.map((pair) => {
    const [op, ver] = list(pair);
    const version = versionText(ver);
    if (
      typeof op !== 'string' ||
      !OPS.has(op) ||
      version === undefined ||
      version.length > 64 ||
      !REQ_VERSION.test(version)
    )
      throw bad(`${what} has a malformed requirement`);
    return [op, version];
  });
  return out.length ? out : [['>=', '0']];
}

function dependencies(spec: Node): GemDependency[] {
  const deps = list(spec.dependencies);
  if (deps.length > MAX_DEPENDENCIES) throw bad(`more than ${MAX_DEPENDENCIES} dependencies`);
  return deps.map((d) => {
    if (!isNode(d) || typeof d.name !== 'string' || !isGemName(d.name)) throw bad('a dependency has a malformed name');
    return {
      name: d.name,
      requirement: requirement(d.requirement ?? d.version_requirements, `dependency ${d.name}`),
      type: d.type === ':development' ? 'development' : 'runtime',
    };
  });
}

const strings = (v: unknown): string[] => list(v).filter((x): x is string => typeof x === 'string');

/** Reads a .gem; 400 `bad_request` when it is not one, or its name, version or checksums are wrong. */
export async function readGem(gem: Buffer): Promise<GemMeta> {
  const limits = { maxBytes: gem.length + 1024, maxEntries: 1000, maxEntryBytes: gem.length };
  const entry = async (name: string) => {
    try {
      return (await findInTar(Readable.from([gem]), (n) => n === name, limits))?.data ?? null;
    } catch (e) {
      if (isArchiveError(e)) throw bad(`it is not a tar archive (${e.message})`);
      throw e;
    }
  };
  const metadataGz = await entry('metadata.gz');
  const data = await entry('data.tar.gz');
  if (!metadataGz || !data) throw bad('a .gem holds metadata.gz and data.tar.gz');
  const checksums = await entry('checksums.yaml.gz');
  if (checksums) verifyChecksums(checksums, { 'metadata.gz': metadataGz, 'data.tar.gz': data });

  let yaml: string;
  try {
    yaml = gunzipCapped(metadataGz, MAX_METADATA_BYTES).toString('utf8');
  } catch (e) {
    throw bad(`metadata.gz cannot be read (${(e as Error).message})`);
  }
  const spec = readSpec(yaml);
  if (!spec) throw bad('metadata.gz is not a gemspec');
  const name = spec.name;
  const version = versionText(spec.version);
  const platform = typeof spec.platform === 'string' && spec.platform !== '' ? spec.platform : 'ruby';
  if (typeof name !== 'string' || !isGemName(name))
    throw errors.badRequest(`"${String(name).slice(0, 100)}" is not a valid gem name`);
  if (version === undefined || version.length > 64 || !VERSION.test(version))
    throw errors.badRequest(`"${String(version).slice(0, 100)}" is not a valid gem version`);
  if (platform !== 'ruby' && !isVersionToken(`${version}-${platform}`))
    throw errors.badRequest(`"${platform.slice(0, 100)}" is not a valid gem platform`);
  const date = /^\d{4}-\d{2}-\d{2}/.exec(str(spec.date))?.[0] ?? new Date().toISOString().slice(0, 10);
  const metadata = isNode(spec.metadata)
    ? Object.fromEntries(Object.entries(spec.metadata).filter((e): e is [string, string] => typeof e[1] === 'string'))
    : {};
  return {
    name,
    version,
    platform,
    sha256: crypto.createHash('sha256').update(gem).digest('hex'),
    dependencies: dependencies(spec),
    requiredRuby: requirement(spec.required_ruby_version, 'required_ruby_version'),
    requiredRubygems: requirement(spec.required_rubygems_version, 'required_rubygems_version'),
    summary: str(spec.summary),
    description: str(spec.description),
    authors: strings(spec.authors),
    email: typeof spec.email === 'string' ? spec.email : Array.isArray(spec.email) ? strings(spec.email) : null,
    homepage: typeof spec.homepage === 'string' && spec.homepage !== '' ? spec.homepage : null,
    licenses: strings(spec.licenses),
    metadata,
    date,
    rubygemsVersion: str(spec.rubygems_version) || '0',
    specificationVersion: Number(str(spec.specification_version)) || 4,
  };
}

/** checksums.yaml.gz names a SHA256 and a SHA512 per entry: each one named must match the entry's bytes. */
function verifyChecksums(gz: Buffer, entries: Record<string, Buffer>): void {
  let doc: Node | undefined;
  try {
    doc = readSpec(gunzipCapped(gz, MAX_METADATA_BYTES).toString('utf8'));
  } catch {
    doc = undefined;
  }
  if (!doc) throw bad('checksums.yaml.gz cannot be read');
  for (const [algo, hash] of [
    ['SHA256', 'sha256'],
    ['SHA512', 'sha512'],
  ] as const) {
    const sums = doc[algo];
    if (!isNode(sums)) continue;
    for (const [file, bytes] of Object.entries(entries)) {
      const claimed = sums[file];
      if (typeof claimed !== 'string') continue;
      const actual = crypto.createHash(hash).update(bytes).digest('hex');
      if (claimed.toLowerCase() !== actual)
        throw bad(`checksums.yaml.gz says ${file} has ${algo} ${claimed.slice(0, 128)}, but its bytes have ${actual}`);
    }
  }
}

/** The version token: `1.0.0`, or `1.0.0-x86_64-linux` for a platform gem. */
export const tokenOf = (m: Pick<GemMeta, 'version' | 'platform'>): string =>
  m.platform === 'ruby' ? m.version : `${m.version}-${m.platform}`;

/** `>= 1.0&< 2`, as the compact index writes a requirement. */
export const requirementText = (r: Requirement, sep = '&'): string => r.map(([op, v]) => `${op} ${v}`).join(sep);
