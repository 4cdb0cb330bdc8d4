/** Plugins' own sections of hub.toml: taken out of the document, defaulted and checked with the rest of the file. */
import { Value } from 'typebox/value';
import { ConfigError, type Issues } from './issues.js';
import { reportSchemaErrors } from './schema-errors.js';
import { isTable } from './toml-source.js';
import { HubConfigSchema, type ConfigSection } from './schema.js';

/** A section's key path: `auth.oidc` is the table `oidc` inside `[auth]`. */
export const sectionPath = (section: string): string[] => section.split('.');

/**
 * Takes each plugin's section out of the document, applies its defaults and checks it in the same pass as the rest.
 * A dotted name (`auth.oidc`) is a table inside a runtime section: it is taken out of that section before the
 * runtime's strict schema sees it, and only a key the runtime's schema does not define may be claimed so.
 */
export function applyPluginSections(
  issues: Issues,
  doc: Record<string, unknown>,
  sections: readonly ConfigSection[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of sections) {
    const [top, ...inner] = sectionPath(s.section);
    const runtimeSection = (HubConfigSchema.properties as Record<string, { properties?: Record<string, unknown> }>)[
      top!
    ];
    const claimed =
      inner.length === 0
        ? runtimeSection !== undefined
        : inner.length > 1 || runtimeSection?.properties === undefined || inner[0]! in runtimeSection.properties;
    if (claimed || s.section in out)
      throw new ConfigError(
        `two owners claim the [${s.section}] section of hub.toml (a plugin's section must be its own)`,
        { key: s.section },
      );
    const parent = inner.length === 0 ? doc : doc[top!];
    const key = inner[0] ?? top!;
    const raw = isTable(parent) ? parent[key] : undefined;
    if (isTable(parent)) delete parent[key];
    const value = Value.Default(s.schema, raw);
    reportSchemaErrors(issues, s.schema, value, sectionPath(s.section));
    out[s.section] = value;
  }
  return out;
}
