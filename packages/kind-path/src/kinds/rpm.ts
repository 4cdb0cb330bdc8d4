import { digestFromHex } from '../classify.js';
import { definePathKind } from '../path-kind.js';

/**
 * rpm (dnf/yum repositories). `repodata/repomd.xml` (and its .asc/.key) is mutable; the files it lists
 * are named `<hash>-<type>.<ext>` by createrepo and are immutable, verified against that hash. Unhashed
 * repodata files (createrepo --simple-md-filenames) are mutable. `.rpm` files must start with the rpm lead.
 */
const HASHED = /(^|\/)repodata\/([0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{128})-[^/]+$/u;

export default definePathKind({
  id: 'rpm',
  description:
    'rpm repositories (dnf/yum): repomd.xml revalidated by TTL, hashed repodata and packages cached immutably',
  index: [/(^|\/)repodata\/(?![0-9a-f]{40,128}-)[^/]+$/u],
  digestOf(path) {
    const m = HASHED.exec(path);
    return m ? digestFromHex(m[2]!) : undefined;
  },
});
