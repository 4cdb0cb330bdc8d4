import { definePlugin } from '@hub/runtime';
import { replicas } from './migrations/001_replicas.js';
import { fetchLeases } from './migrations/002_fetch_leases.js';

/**
 * Replicas sharing one database: each writes a heartbeat, and on MySQL the replica fetching an artifact holds
 * a lease on it while the others stream from it. Without this plugin each replica fetches on its own.
 */
export default definePlugin({
  id: 'cluster',
  deps: [],
  contract: 1,
  description:
    'Replicas that share a MySQL database: heartbeats, one upstream fetch per artifact across replicas, streamed to the others',
  migrations: { '001_replicas': replicas, '002_fetch_leases': fetchLeases },
  cluster: {
    async create(ctx) {
      const { joinCluster } = await import('./join-cluster.js');
      return joinCluster(ctx);
    },
  },
});
