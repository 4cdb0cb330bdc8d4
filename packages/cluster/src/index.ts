import { definePlugin } from '@hub/runtime';

/** Replicas that share a MySQL database: heartbeats, one upstream fetch per artifact across replicas, streamed to the others. */
export default definePlugin({
  id: 'cluster',
  contract: 1,
  description: "Replicas that share a MySQL database: heartbeats, one upstream fetch per artifact across replicas, streamed to the others",
});
