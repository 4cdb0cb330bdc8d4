/**
 * `quick/Marshal.4.8/<gem>.gemspec.rz` for a gem published here, generated from what hub kept of its
 * gemspec: a zlib-deflated `Marshal.dump(spec)`, which is Gem::Specification's `_dump` array (19
 * fields, as RubyGems' `Specification._load` reads them) wrapped in a user-defined (`u`) object.
 * Two simplifications that `_load` accepts: the date is the `YYYY-MM-DD` string (`date=` parses it),
 * and a platform other than `ruby` is its string (Gem::Platform parses it where it is compared).
 */
import zlib from 'node:zlib';
import type { GemDependency, GemMeta, Requirement } from './gem-package.js';
import { encode, MSym, type MValue } from './marshal.js';

const sym = (s: string) => new MSym(Buffer.from(s, 'utf8'));
const E = sym('E');
/** A UTF-8 Ruby string (`I"…` with `E: true`). */
const str = (s: string): MValue => ({ t: 'string', bytes: Buffer.from(s, 'utf8'), ivars: [[E, true]] });
const arr = (items: MValue[]): MValue => ({ t: 'array', items });
const version = (v: string): MValue => ({ t: 'userMarshal', cls: sym('Gem::Version'), data: arr([str(v)]) });
const requirement = (r: Requirement): MValue => ({ t: 'userMarshal', cls: sym('Gem::Requirement'), data: arr([arr(r.map(([op, v]) => arr([str(op), version(v)])))]) });

const dependency = (d: GemDependency): MValue => ({
  t: 'object',
  cls: sym('Gem::Dependency'),
  ivars: [
    [sym('@name'), str(d.name)],
    [sym('@requirement'), requirement(d.requirement)],
    [sym('@type'), sym(d.type)],
    [sym('@prerelease'), false],
    [sym('@version_requirements'), requirement(d.requirement)],
  ],
});

/** The Marshal bytes of the Gem::Specification (before deflating). */
export function specMarshal(m: GemMeta): Buffer {
  const fields: MValue[] = [
    str(m.rubygemsVersion),
    m.specificationVersion,
    str(m.name),
    version(m.version),
    str(m.date),
    str(m.summary),
    requirement(m.requiredRuby),
    requirement(m.requiredRubygems),
    str(m.platform),
    arr(m.dependencies.map(dependency)),
    str(''),
    m.email === null ? null : typeof m.email === 'string' ? str(m.email) : arr(m.email.map(str)),
    arr(m.authors.map(str)),
    str(m.description),
    m.homepage === null ? null : str(m.homepage),
    true,
    str(m.platform),
    arr(m.licenses.map(str)),
    { t: 'hash', pairs: Object.entries(m.metadata).map(([k, v]) => [str(k), str(v)]) },
  ];
  return encode({ t: 'userDef', cls: sym('Gem::Specification'), bytes: encode(arr(fields)) });
}

export const quickSpec = (m: GemMeta): Buffer => zlib.deflateSync(specMarshal(m));
