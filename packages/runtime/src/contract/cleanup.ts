/** `[[registries.cleanup]]` as plugins see it (the admin API's cleanup routes; decision 0056); cache/cleanup-run.ts implements it. */

/** One version a run removes (or a preview would), as the admin API and `hub cleanup` show it. */
export interface CleanupItem {
  registry: string;
  package: string;
  version: string;
  bytes: number;
  files: number;
  published: boolean;
  /** The selecting rule's index in the registry's `cleanup` list, and the rule as text. */
  rule: number;
  rule_description: string;
  last_downloaded_at: string;
  cached_at: string;
}

export interface CleanupReport {
  dry_run: boolean;
  /** The registries looked at: those with cleanup rules (or the one asked for). */
  registries: string[];
  versions: number;
  bytes: number;
  /** The versions, at most `limit` of them (totals count every one). */
  items: CleanupItem[];
  truncated: boolean;
}

export interface CleanupRequest {
  /** One registry (404 unknown); default every registry with rules. */
  registry?: string;
  /** Items listed at most (default 1000). */
  limit?: number;
}

/** What a run would remove (preview) and a run. */
export interface Cleanup {
  /** What a run would remove now, with the rule that selected each version; removes nothing. */
  preview(req?: CleanupRequest): Promise<CleanupReport>;
  /** Removes what the rules select; `actor` is who asked (`system:cleanup` for the schedule). */
  run(req?: CleanupRequest & { actor?: string }): Promise<CleanupReport>;
  /** Whether any registry has rules (the schedule runs only then). */
  configured(): boolean;
}
