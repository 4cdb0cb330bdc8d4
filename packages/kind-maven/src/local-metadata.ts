import { walk, escapeText } from './xml.js';
import { compareMavenVersions } from './version-order.js';
import { isSnapshot } from './layout.js';

/**
 * maven-metadata.xml for versions published here (and, in a hybrid registry whose name the upstream may
 * serve, merged with the upstream's): generated from the database, never from a client's PUT.
 */

/** Maven's `lastUpdated` form: UTC `yyyyMMddHHmmss`. */
export const lastUpdatedOf = (d: Date): string => d.toISOString().replace(/[-:T]/g, '').slice(0, 14);

/** `<versioning><lastUpdated>` of an upstream document, or null. */
export function upstreamLastUpdated(xml: string): string | null {
  let out: string | null = null;
  walk(xml, (path, text) => {
    if (path === 'metadata/versioning/lastUpdated' && /^\d{14}$/.test(text)) out = text;
  });
  return out;
}

export interface GeneratedMetadata {
  group: string;
  artifact: string;
  /** Any order, duplicates allowed: the document lists each once, oldest to newest in Maven's order. */
  versions: readonly string[];
  lastUpdated: string;
}

/** The document Maven reads: `<latest>` the highest version, `<release>` the highest that is not a SNAPSHOT. */
export function generateMetadata(m: GeneratedMetadata): Buffer {
  const versions = [...new Set(m.versions)].sort(compareMavenVersions);
  const latest = versions.at(-1);
  const release = versions.filter((v) => !isSnapshot(v)).at(-1);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<metadata>',
    `  <groupId>${escapeText(m.group)}</groupId>`,
    `  <artifactId>${escapeText(m.artifact)}</artifactId>`,
    '  <versioning>',
    ...(latest ? [`    <latest>${escapeText(latest)}</latest>`] : []),
    ...(release ? [`    <release>${escapeText(release)}</release>`] : []),
    '    <versions>',
    ...versions.map((v) => `      <version>${escapeText(v)}</version>`),
    '    </versions>',
    `    <lastUpdated>${m.lastUpdated}</lastUpdated>`,
    '  </versioning>',
    '</metadata>',
    '',
  ];
  return Buffer.from(lines.join('\n'), 'utf8');
}
