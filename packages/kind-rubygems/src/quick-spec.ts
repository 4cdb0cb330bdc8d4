/**
 * `quick/Marshal.4.8/<gem>.gemspec.rz` for a gem published here, generated from what hub kept of its
 * gemspec: a zlib-deflated `Marshal.dump(spec)`, which is Gem::Specification's `_dump` array (19
 * fields, as RubyGems' `Specification._load` reads them) wrapped in a user-defined (`u`) object.
 * The date is the `YYYY-MM-DD` string (`date=` parses it); a platform other than `ruby` is the
 * Gem::Platform object RubyGems' `Gem::Platform.new(string)` makes (ported below), or its string when
 * that object would not print back the same (`_load` accepts either).
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
const requirement = (r: Requirement): MValue => ({
  t: 'userMarshal',
  cls: sym('Gem::Requirement'),
  data: arr([arr(r.map(([op, v]) => arr([str(op), version(v)])))]),
});

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

/** RubyGems 3.3's `Gem::Platform.new(string)`: [cpu, os, version]. */
export function parsePlatform(text: string): [string | null, string, string | null] {
  const arch = text.split('-');
  if (arch.length > 2 && !/\d/.test(arch.at(-1)!)) {
    const extra = arch.pop()!;
    arch[arch.length - 1] += `-${extra}`;
  }
  const first = arch.shift()!;
  let cpu: string | null = /i\d86/.test(first) ? 'x86' : first;
  if (arch.length === 2 && /^\d+(\.\d+)?$/.test(arch[1]!)) return [cpu, arch[0]!, arch[1]!];
  let os = arch[0];
  if (os === undefined) [cpu, os] = [null, first];
  const rules: [RegExp, string | ((m: RegExpExecArray) => string)][] = [
    [/aix(\d+)?/, 'aix'],
    [/cygwin/, 'cygwin'],
    [/darwin(\d+)?/, 'darwin'],
    [/^macruby$/, 'macruby'],
    [/freebsd(\d+)?/, 'freebsd'],
    [/hpux(\d+)?/, 'hpux'],
    [/^java$|^jruby$/, 'java'],
    [/^java([\d.]*)/, 'java'],
    [/^dalvik(\d+)?$/, 'dalvik'],
    [/^dotnet$/, 'dotnet'],
    [/^dotnet([\d.]*)/, 'dotnet'],
    [/linux-?((?!gnu)\w+)?/, 'linux'],
    [/mingw32/, 'mingw32'],
    [/mingw-?(\w+)?/, 'mingw'],
    [/(mswin\d+)(_(\d+))?/, (m) => m[1]!],
    [/netbsdelf/, 'netbsdelf'],
    [/openbsd(\d+\.\d+)?/, 'openbsd'],
    [/bitrig(\d+\.\d+)?/, 'bitrig'],
    [/solaris(\d+\.\d+)?/, 'solaris'],
    [/^(\w+_platform)(\d+)?/, (m) => m[1]!],
  ];
  for (const [re, name] of rules) {
    const m = re.exec(os);
    if (!m) continue;
    if (typeof name === 'function') {
      const mswin = name(m);
      if (re.source.startsWith('(mswin')) return [cpu === null && /32$/.test(mswin) ? 'x86' : cpu, mswin, m[3] ?? null];
      return [cpu, mswin, m[2] ?? null];
    }
    return [cpu, name, m[1] ?? null];
  }
  return [cpu, 'unknown', null];
}

/** `ruby`, or a Gem::Platform object when it prints back as the gem's platform string. */
function platform(text: string): MValue {
  if (text === 'ruby') return str(text);
  const [cpu, os, version] = parsePlatform(text);
  if ([cpu, os, version].filter((x) => x !== null).join('-') !== text) return str(text);
  const opt = (v: string | null) => (v === null ? null : str(v));
  return {
    t: 'object',
    cls: sym('Gem::Platform'),
    ivars: [
      [sym('@cpu'), opt(cpu)],
      [sym('@os'), str(os)],
      [sym('@version'), opt(version)],
    ],
  };
}

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
    platform(m.platform),
    arr(m.licenses.map(str)),
    { t: 'hash', pairs: Object.entries(m.metadata).map(([k, v]) => [str(k), str(v)]) },
  ];
  return encode({ t: 'userDef', cls: sym('Gem::Specification'), bytes: encode(arr(fields)) });
}

export const quickSpec = (m: GemMeta): Buffer => zlib.deflateSync(specMarshal(m));
