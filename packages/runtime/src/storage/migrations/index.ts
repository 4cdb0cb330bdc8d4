import type { Migration } from '../../contract/migration.js';
import { core } from './001_core.js';
import { settings } from './002_settings.js';
import { access } from './003_access.js';
import { events } from './004_events.js';
import { metadataBlobIndex } from './005_metadata_blob_index.js';
import { accessByPackage } from './011_access_by_package.js';
import { versionLinks } from './012_version_links.js';
import { retentionHolds } from './013_retention_holds.js';
import { accessViaGroup } from './014_access_via_group.js';
import { auditChain } from './019_audit_chain.js';
import { auditCheckpoints } from './020_audit_checkpoints.js';
import { movedToPlugin } from './moved.js';

export const runtimeMigrations: Readonly<Record<string, Migration>> = {
  '001_core': core,
  '002_settings': settings,
  '003_access': access,
  '004_events': events,
  '005_metadata_blob_index': metadataBlobIndex,
  '006_replicas': movedToPlugin('@hub/cluster'),
  '007_fetch_leases': movedToPlugin('@hub/cluster'),
  '008_local_packages': movedToPlugin('@hub/publishing'),
  '009_console_sessions': movedToPlugin('@hub/console'),
  '010_kept_listings': movedToPlugin('@hub/audit'),
  '011_access_by_package': accessByPackage,
  '012_version_links': versionLinks,
  '013_retention_holds': retentionHolds,
  '014_access_via_group': accessViaGroup,
  '019_audit_chain': auditChain,
  '020_audit_checkpoints': auditCheckpoints,
};
