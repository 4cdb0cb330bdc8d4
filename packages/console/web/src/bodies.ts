/**
 * The request bodies of the console's state-changing actions, as the admin API's own TypeBox schemas
 * type them: a route whose body changes breaks `npm run build:console` rather than a click.
 */
import type { Static } from 'typebox';
import type { AccessCheckBody, BlockBody, CreateTokenBody, CreateUserBody, PolicyBody, UnlistBody } from '../../../admin/src/schemas.ts';
import type { IpBlockBody } from '../../../ip-blocks/src/schemas.ts';

export interface ActionBodies {
  block_add: Static<typeof BlockBody>;
  unlist: Static<typeof UnlistBody>;
  relist: Static<typeof UnlistBody>;
  user_create: Static<typeof CreateUserBody>;
  token_create: Static<typeof CreateTokenBody>;
  ip_block_add: Static<typeof IpBlockBody>;
  policy_create: Static<typeof PolicyBody>;
  access_check: Static<typeof AccessCheckBody>;
  /** @hub/audit's RecheckBody (not exported by the plugin). */
  upstream_recheck: { registry: string; package_name: string; version?: string };
  /** @hub/lockfile's check body (the console never marks or warms). */
  lockfile_check: { lockfile: string; file_name?: string; registry?: string };
}
