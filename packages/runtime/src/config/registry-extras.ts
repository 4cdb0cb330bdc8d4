/**
 * The `[[registries]]` entries' two halves: the base keys the runtime's schema knows, and the keys of the entry's
 * kind, taken out before the runtime's strict schema sees them and checked against the kind's own schema.
 */
import { Value } from 'typebox/value';
import type { Issues } from './issues.js';
import { reportSchemaErrors, unknownKey } from './schema-errors.js';
import { isTable, type KeyPath } from './toml-source.js';
import { RegistrySchema, type KindSchemas } from './schema.js';

const BASE_REGISTRY_KEYS = Object.keys(RegistrySchema.properties);

/** Takes the keys the base registry schema does not know out of each entry; they belong to the kind. */
export function splitRegistryExtras(doc: Record<string, unknown>): Array<Record<string, unknown>> {
  const regs = doc.registries;
  if (!Array.isArray(regs)) return [];
  return regs.map((reg: unknown) => {
    const extra: Record<string, unknown> = {};
    if (!isTable(reg)) return extra;
    for (const key of Object.keys(reg)) {
      if (BASE_REGISTRY_KEYS.includes(key)) continue;
      extra[key] = reg[key];
      delete reg[key];
    }
    return extra;
  });
}

export function writtenKeys(
  doc: Record<string, unknown>,
  extras: ReadonlyArray<Record<string, unknown>>,
): Array<Set<string>> {
  const regs = Array.isArray(doc.registries) ? (doc.registries as unknown[]) : [];
  return regs.map((reg, i) => new Set([...(isTable(reg) ? Object.keys(reg) : []), ...Object.keys(extras[i] ?? {})]));
}

export function registryMode(doc: Record<string, unknown>, index: number): unknown {
  const reg: unknown = Array.isArray(doc.registries) ? doc.registries[index] : undefined;
  return isTable(reg) ? reg.mode : undefined;
}

export function registryType(doc: Record<string, unknown>, index: number): string | undefined {
  const reg: unknown = Array.isArray(doc.registries) ? doc.registries[index] : undefined;
  return isTable(reg) && typeof reg.type === 'string' ? reg.type : undefined;
}

/** Validates a registry's kind keys and applies the kind's defaults. An unknown type is the runtime's to report. */
export function applyKindSchema(
  issues: Issues,
  index: number,
  type: string | undefined,
  extra: Record<string, unknown>,
  kindSchemas: KindSchemas | undefined,
): Record<string, unknown> {
  const base: KeyPath = ['registries', index];
  // Without a valid type the base schema already has an error to report; say nothing more.
  if (type === undefined) return extra;
  const schema = kindSchemas?.get(type);
  if (schema === undefined) {
    for (const key of Object.keys(extra))
      issues.add([...base, key], unknownKey(key, BASE_REGISTRY_KEYS, ` for type "${type}"`));
    return extra;
  }
  const value = Value.Default(schema, extra);
  reportSchemaErrors(issues, schema, value, base, BASE_REGISTRY_KEYS);
  return isTable(value) ? value : extra;
}
