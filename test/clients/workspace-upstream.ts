/**
 * Starts workspace-upstream-server.ts in a worker thread: a loopback npm upstream serving the workspace's own
 * installed packages, so a test installing koa, knex, tap or typescript through hub reaches nothing else.
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

export interface WorkspaceUpstream {
  url: string;
  /** How many package names and versions it serves. */
  names: number;
  versions: number;
  /** Stops it; resolves with how many names were asked for and how many tarballs were served. */
  close(): Promise<{ asked: number; served: number }>;
}

export async function startWorkspaceUpstream(nodeModulesDirs: readonly string[]): Promise<WorkspaceUpstream> {
  const worker = new Worker(new URL('./workspace-upstream-server.js', import.meta.url), {
    workerData: nodeModulesDirs,
  });
  const [ready] = (await Promise.race([
    once(worker, 'message'),
    once(worker, 'error').then(([e]) => Promise.reject(e as Error)),
  ])) as [{ url: string; names: number; versions: number }];
  let closed: Promise<{ asked: number; served: number }> | undefined;
  return {
    ...ready,
    close() {
      closed ??= (async () => {
        const stats = once(worker, 'message');
        worker.postMessage('close');
        const [s] = (await stats) as [{ asked: number; served: number }];
        await worker.terminate();
        return s;
      })();
      return closed;
    },
  };
}
