/**
 * Test helpers for publishing: .gem files made here (a POSIX tar of metadata.gz, data.tar.gz and
 * checksums.yaml.gz, as `gem build` writes it) for the refusal tests that need no ruby, and
 * `gem build` itself for the real-client tests.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { makeTar } from '@hub/testkit';

/** A plain ustar archive of `entries`. */
export const tar = (entries: Record<string, Buffer>): Buffer => makeTar(entries);

export interface GemOpts {
  name: string;
  version: string;
  platform?: string;
  /** `[name, op, version]` runtime dependencies. */
  deps?: [string, string, string][];
  /** `bad`: checksums.yaml.gz names a sha256 data.tar.gz does not have. */
  checksums?: 'good' | 'bad';
}

const q = (s: string) => JSON.stringify(s);

/** The gemspec YAML as Psych writes it (the fields hub reads). */
export function gemYaml(o: GemOpts): string {
  const deps = (o.deps ?? [])
    .map(
      ([n, op, v]) => `- !ruby/object:Gem::Dependency
  name: ${q(n)}
  requirement: !ruby/object:Gem::Requirement
    requirements:
    - - ${q(op)}
      - !ruby/object:Gem::Version
        version: ${q(v)}
  type: :runtime
  prerelease: false
`,
    )
    .join('');
  return `--- !ruby/object:Gem::Specification
name: ${q(o.name)}
version: !ruby/object:Gem::Version
  version: ${q(o.version)}
platform: ${q(o.platform ?? 'ruby')}
authors:
- Hub Tests
date: 2024-01-01 00:00:00.000000000 Z
dependencies:${deps ? `\n${deps}` : ' []\n'}description: A gem made by the hub publishing tests.
email: hub@example.com
homepage: https://example.com/${o.name}
licenses:
- MIT
metadata: {}
required_ruby_version: !ruby/object:Gem::Requirement
  requirements:
  - - ">="
    - !ruby/object:Gem::Version
      version: '2.5'
required_rubygems_version: !ruby/object:Gem::Requirement
  requirements:
  - - ">="
    - !ruby/object:Gem::Version
      version: '0'
rubygems_version: 3.3.15
specification_version: 4
summary: hub publishing test gem
`;
}

/** A .gem made without ruby. */
export function makeGem(o: GemOpts): Buffer {
  const metadata = zlib.gzipSync(gemYaml(o));
  const data = zlib.gzipSync(tar({ [`lib/${o.name}.rb`]: Buffer.from(`module Hubpub; NAME = ${q(o.name)}; end\n`) }));
  const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
  const checksums = `---\nSHA256:\n  metadata.gz: ${sha(metadata)}\n  data.tar.gz: ${o.checksums === 'bad' ? '0'.repeat(64) : sha(data)}\n`;
  return tar({ 'metadata.gz': metadata, 'data.tar.gz': data, 'checksums.yaml.gz': zlib.gzipSync(checksums) });
}

/** `gem build` of a tiny gem in `dir`; returns the .gem's path. */
export function gemBuild(
  dir: string,
  env: NodeJS.ProcessEnv,
  o: { name: string; version: string; deps?: [string, string][]; marker?: string; localPlatform?: boolean },
): string {
  const src = path.join(dir, `src-${o.name}-${o.version}`);
  fs.mkdirSync(path.join(src, 'lib'), { recursive: true });
  fs.writeFileSync(
    path.join(src, 'lib', `${o.name}.rb`),
    `module Hubpub; MARKER = ${q(o.marker ?? `${o.name} ${o.version}`)}; end\n`,
  );
  const deps = (o.deps ?? []).map(([n, r]) => `  s.add_runtime_dependency ${q(n)}, ${q(r)}\n`).join('');
  fs.writeFileSync(
    path.join(src, 'x.gemspec'),
    `Gem::Specification.new do |s|
  s.name = ${q(o.name)}
  s.version = ${q(o.version)}
  s.summary = 'hub publishing test gem'
  s.authors = ['Hub Tests']
  s.license = 'MIT'
  s.files = [${q(`lib/${o.name}.rb`)}]
${o.localPlatform ? '  s.platform = Gem::Platform.local\n' : ''}${deps}end
`,
  );
  execFileSync('gem', ['build', 'x.gemspec'], { cwd: src, env, stdio: 'ignore' });
  const built = fs.readdirSync(src).find((f) => f.endsWith('.gem'));
  return path.join(src, built!);
}
