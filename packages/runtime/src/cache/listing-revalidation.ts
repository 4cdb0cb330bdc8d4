/**
 * Revalidation (decision 0058): refetch one package's listing documents now, past their TTL, through the
 * metadata cache (so the copy clients get is the one replaced), and say which versions came and went.
 * Plugins listen (the upstream audit treats what went as a sweep would).
 */
import { errors, type MetadataSpec, type RegistryKind, type RegistryInfo, type UpstreamClient } from '@hub/contract';
import type { Logger } from 'pino';
import type { MetadataCache } from './metadata-cache.js';

/** What happened to one listing document. */
export interface RevalidatedDocument {
  key: string;
  /**
   * `replaced`: a new copy is stored; `unchanged`: the upstream sent the same bytes; `not_found`: the upstream
   * answered 404/410 (a stored copy stays, the last good listing); `failed`: no valid answer, the stored copy stays.
   */
  outcome: 'replaced' | 'unchanged' | 'not_found' | 'failed';
  detail?: string;
}

export interface RevalidationResult {
  registry: string;
  package: string;
  /** The version asked about, when one was; `listed` says whether the upstream lists it now. */
  version?: string;
  listed?: boolean;
  /** Versions the stored listing named before, and what the upstream lists now (sorted as strings, de-duplicated). */
  before: string[];
  after: string[];
  added: string[];
  gone: string[];
  /** When the upstream was asked (ISO 8601). */
  fetched_at: string;
  documents: RevalidatedDocument[];
  /** What listeners did with it (`audit`: the upstream audit's findings), by listener name. */
  effects: Record<string, unknown>;
}

/** Told of every revalidation that got an answer from the upstream; what it resolves with is reported under its name. */
export type RevalidationListener = (r: Omit<RevalidationResult, 'effects'>) => Promise<unknown>;

export interface ListingRevalidation {
  revalidate(registry: string, packageName: string, version?: string): Promise<RevalidationResult>;
  /** Registers a listener (one per name); `@hub/audit` records what went as a sweep finding would. */
  onRevalidated(name: string, listener: RevalidationListener): void;
}

interface Served {
  info: RegistryInfo;
  kind: RegistryKind;
  upstream: UpstreamClient;
}

const sorted = (s: Iterable<string>): string[] => [...new Set(s)].sort();

export function createListingRevalidation(o: {
  registries: ReadonlyMap<string, Served>;
  metadata: MetadataCache;
  log: Logger;
}): ListingRevalidation {
  const listeners = new Map<string, RevalidationListener>();

  return {
    onRevalidated(name, listener) {
      listeners.set(name, listener);
    },

    async revalidate(registry, packageName, version) {
      const reg = o.registries.get(registry);
      if (!reg) throw errors.notFound(`no registry named "${registry.slice(0, 64)}"`);
      const { info, kind, upstream } = reg;
      if (info.mode === 'local')
        throw errors.badRequest(`registry ${registry} is local: it has no upstream listing to revalidate`);
      if (info.mode === 'group')
        throw errors.badRequest(`registry ${registry} is a group: revalidate the package in its member registries`);
      const listings = kind.listings;
      if (!listings)
        throw errors.badRequest(
          `the ${kind.id} kind names no listing documents, so registry ${registry} cannot revalidate a package`,
        );
      const lc = {
        registry: info,
        upstream,
        log: o.log,
        metadata: (spec: MetadataSpec) => o.metadata.get(info, spec, upstream),
      };
      const specs = await listings.specs(lc, packageName);
      const fetchedAt = new Date();
      const read = (
        doc: { body: Buffer; contentType?: string } | null | undefined,
        spec: MetadataSpec,
      ): string[] | null => {
        if (!doc) return null;
        try {
          return [...listings.versions(doc.body, spec, doc.contentType)];
        } catch {
          return null;
        }
      };
      const before: string[] = [];
      const after: string[] = [];
      const documents: RevalidatedDocument[] = [];
      for (const spec of specs) {
        // A document the kind cannot read versions from is no better than an error page: it replaces nothing.
        const checked: MetadataSpec = {
          ...spec,
          check: (b, ct) =>
            spec.check?.(b, ct) ??
            (read({ body: b, contentType: ct }, spec) ? null : 'no version list could be read from it'),
        };
        const res = await o.metadata.revalidate(info, checked, upstream);
        before.push(...(read(res.before, spec) ?? []));
        if (res.error)
          documents.push({
            key: spec.key,
            outcome: res.error.code === 'not_found' ? 'not_found' : 'failed',
            detail: res.error.message,
          });
        else if (res.doc!.kept) documents.push({ key: spec.key, outcome: 'not_found', detail: res.kept ?? undefined });
        else if (res.kept !== null)
          documents.push({ key: spec.key, outcome: 'failed', detail: `${res.kept}; the cached copy stays` });
        else {
          after.push(...(read(res.doc, spec) ?? []));
          documents.push({ key: spec.key, outcome: res.before?.body.equals(res.doc!.body) ? 'unchanged' : 'replaced' });
        }
      }
      if (documents.every((d) => d.outcome === 'failed'))
        throw errors.upstream(
          `no valid listing of ${packageName} from the upstream of registry ${registry}; the cached copy stays: ${documents.map((d) => d.detail).join('; ')}`,
        );
      const b = sorted(before);
      const a = sorted(after);
      const result = {
        registry,
        package: packageName,
        ...(version !== undefined ? { version, listed: a.includes(version) } : {}),
        before: b,
        after: a,
        added: a.filter((v) => !b.includes(v)),
        gone: b.filter((v) => !a.includes(v)),
        fetched_at: fetchedAt.toISOString(),
        documents,
      };
      const effects: Record<string, unknown> = {};
      for (const [name, listener] of listeners) {
        try {
          effects[name] = await listener(result);
        } catch (e) {
          o.log.warn(
            { registry, package: packageName, listener: name, err: (e as Error).message },
            'a revalidation listener failed',
          );
          effects[name] = { error: (e as Error).message };
        }
      }
      // A listener may have kept a listing the upstream removed (the audit): the 404 just remembered must not hide it.
      for (const d of documents) if (d.outcome === 'not_found') o.metadata.forget(registry, d.key);
      return { ...result, effects };
    },
  };
}
