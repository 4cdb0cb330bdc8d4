import { type Coordinate, errors, HubError } from '@hub/contract';
import type { AuditContext } from '../audit/access-event.js';
import type { FoundBlock } from '../services/blocks.js';
import type { RefusalAnswer, Who } from '../contract/plugin.js';
import type { BoundRegistry, RegistryRoutesDeps } from './registry-deps.js';

/** A 401 that also challenges for Basic, because maven, NuGet and pacman only send credentials after one. */
export const challenge = (message: string) =>
  new HubError('unauthenticated', message, {
    headers: { 'WWW-Authenticate': 'Basic realm="hub", Bearer realm="hub"' },
  });

/** A write to a proxy registry: a route that publishes, or a handler that asks for the local store. */
export const proxyRefusal = (registry: string) =>
  new HubError(
    'method_not_allowed',
    `registry "${registry}" is a proxy registry: publish to a local or hybrid registry`,
  );

/** Any write to a group: publishes go to a member. */
export const groupRefusal = (reg: BoundRegistry) => {
  const publishable = reg.group!.members.filter((m) => m.info.mode !== 'proxy').map((m) => `"${m.info.name}"`);
  return new HubError(
    'method_not_allowed',
    `registry "${reg.info.name}" is a group registry: publish to one of its members${publishable.length ? ` (${publishable.join(', ')})` : ''}`,
  );
};

/** What a 403 for a block says, and what a listing that marks the version refused (pypi's yanked) says. */
/** A block's refusal; a version refused through a link names the blocked one it belongs to (an OCI digest its blocked tag names). */
export const blockMessage = (
  c: { name: string; version?: string },
  block: Pick<FoundBlock, 'version' | 'blocked_by' | 'reason' | 'linked'>,
) => {
  const what =
    block.version === null
      ? `package ${c.name}`
      : block.linked
        ? `${c.name} ${c.version} belongs to ${c.name} ${block.version}, which`
        : `${c.name} ${block.version}`;
  return `${what} is blocked by ${block.blocked_by}${block.reason ? `: ${block.reason}` : ''}`;
};

/** The subject of a request as waivers see it (none for a signed URL: it carries no subject). */
export const whoOf = (s: { user_id: string | null; token_id: string | null } | undefined): Who | undefined =>
  s && { user: s.user_id, tokenId: s.token_id };

/** The waiver that lifts `target` for `who`, or null; no waivers (or no subject: a signed URL) lift nothing, and no lookup is made. */
async function waiverFor(
  d: RegistryRoutesDeps,
  target: string,
  registry: string,
  c: Coordinate,
  who: Who | undefined,
): Promise<string | null> {
  if (!who || !d.waivers?.length) return null;
  for (const w of d.waivers) {
    const by = await w(target, registry, c, who);
    if (by) return by;
  }
  return null;
}

const NONE: readonly string[] = Object.freeze([]);

/**
 * Refuses (403 `package_blocked`) a coordinate that a block or a refusal rule refuses, unless a waiver lifts that
 * refusal for `who`. Answers with the waivers that let it through (for the request's audit row), else none:
 * without a promise when the package's blocks are fresh in memory and every rule answers from memory (most hits).
 */
export function refuseBlocked(
  d: RegistryRoutesDeps,
  registry: string,
  c: Coordinate,
  who?: Who,
): readonly string[] | Promise<readonly string[]> {
  const known = d.blocks.findNow(registry, c);
  if (known !== null) return refuseAsked(d, registry, c, who, known, 0);
  for (let i = 0; i < d.refusals.length; i++) {
    const refused = d.refusals[i]!(registry, c);
    // undefined (a plain-JS rule that returned nothing) is no refusal, as on the promised way.
    if (refused !== null && refused !== undefined) return refuseAsked(d, registry, c, who, null, i, refused);
  }
  return NONE;
}

/** refuseBlocked's way with a block to find or weigh, or a rule's answer to wait for (`first`, from rule `from`). */
async function refuseAsked(
  d: RegistryRoutesDeps,
  registry: string,
  c: Coordinate,
  who: Who | undefined,
  known: FoundBlock | null | undefined,
  from: number,
  first?: RefusalAnswer | Promise<RefusalAnswer>,
): Promise<readonly string[]> {
  const lifted: string[] = [];
  const block = known !== undefined ? known : await d.blocks.find(registry, c);
  if (block) {
    const by = await waiverFor(d, `block:${block.id}`, registry, c, who);
    if (!by) throw errors.packageBlocked(blockMessage(c, block));
    lifted.push(`${by} lifts block ${block.id}`);
  }
  for (let i = from; i < d.refusals.length; i++) {
    const refused = await (i === from && first !== undefined ? first : d.refusals[i]!(registry, c));
    if (!refused) continue;
    if (typeof refused === 'string') throw errors.packageBlocked(refused);
    const by = await waiverFor(d, refused.target, registry, c, who);
    if (!by) throw errors.packageBlocked(refused.message);
    lifted.push(`${by} lifts ${refused.target}`);
  }
  return lifted;
}

/** Notes on the request's audit row the waivers that let it through a refusal. */
export const noteWaived = (audit: AuditContext, lifted: readonly string[]) => {
  if (lifted.length) audit.detail = [audit.detail, ...lifted].filter(Boolean).join('; ');
};
