/**
 * The first publish of a name to a hybrid registry (issue 26, decision 0043). Once a name is published there it
 * is `local_only`, and the upstream's versions of it disappear for every reader: a publisher alone could take
 * a public name over. So a name the upstream has is refused (409 `name_exists_upstream`) unless an administrator
 * claimed it for the registry; when the upstream cannot say, the publish is refused with 503 and may be retried.
 * One rule for every kind, asked through the kind's `nameProbe` (else its probe ladder).
 */
import { HubError, type LocalFile, type LocalRegistry, type ProbeContext } from '@hub/contract';
import type { ServedRegistry } from '../contract/plugin.js';
import type { LocalStore } from '../services/local-store.js';

/** How long a 503 asks the client to wait before trying again. */
const RETRY_AFTER_SECS = 30;

type Answer = 'present' | 'absent' | 'inconclusive';

/** Whether the upstream has `name`: the kind's nameProbe, else its ladder for the version (which sees only that version). */
async function upstreamHas(
  reg: ServedRegistry,
  pc: ProbeContext,
  name: string,
  version: string | undefined,
): Promise<Answer> {
  const kind = reg.kind;
  if (kind.nameProbe) return kind.nameProbe(pc, name);
  if (!kind.probe || version === undefined) return 'absent';
  const [result] = await kind.probe(pc, name, [version]);
  return result?.answer === 'present' || result?.answer === 'absent' ? result.answer : 'inconclusive';
}

/**
 * `rc.local` with the first-publish rule in front of every write that stores a file or records a version.
 * (A package document alone publishes nothing: cargo keeps one under the folded spelling of a name.) Names
 * already published here, or claimed, are never asked about; a name is asked once per request.
 */
export function guardFirstPublish(
  local: LocalRegistry,
  reg: ServedRegistry,
  store: LocalStore,
  pc: () => ProbeContext,
): LocalRegistry {
  if (reg.info.mode !== 'hybrid' || reg.kind.addressing === 'path' || !reg.info.upstream) return local;
  const registry = reg.info.name;
  const cleared = new Set<string>();
  const check = async (rawName: string, version: string | undefined) => {
    const name = reg.kind.coordinate.normalizeName?.(rawName) ?? rawName;
    if (cleared.has(name)) return;
    if (!(await store.known(registry, name))) {
      const answer = await upstreamHas(reg, pc(), name, version);
      if (answer === 'present') {
        throw new HubError(
          'name_exists_upstream',
          `${name} exists in the upstream of hybrid registry ${registry}; publishing it here would hide the upstream's versions from everyone. An administrator can claim the name for this registry first (hub packages claim ${registry} ${name})`,
        );
      }
      if (answer !== 'absent') {
        throw new HubError(
          'service_unavailable',
          `the upstream of hybrid registry ${registry} could not say whether it has ${name}, and a first publish of a name waits until it can; retry later, or an administrator can claim the name (hub packages claim ${registry} ${name})`,
          {
            headers: { 'Retry-After': String(RETRY_AFTER_SECS) },
          },
        );
      }
    }
    cleared.add(name);
  };
  return {
    ...local,
    async putFile(file: LocalFile) {
      await check(file.coordinate.name, file.coordinate.version);
      return local.putFile(file);
    },
    async addVersion(name: string, version: string, meta?: unknown) {
      await check(name, version);
      return local.addVersion(name, version, meta);
    },
    // An upload in several requests is refused at its start, before a byte is stored.
    uploads: {
      ...local.uploads,
      async start(name: string) {
        await check(name, undefined);
        return local.uploads.start(name);
      },
    },
    files: {
      ...local.files,
      async link(key, coordinate, contentType, fromKey) {
        await check(coordinate.name, coordinate.version);
        return local.files.link(key, coordinate, contentType, fromKey);
      },
    },
  };
}
