/** The registry a request is for, as configured: what the runtime hands every kind hook. */

/** `group`: one URL over several registries of the same type (decision 0051); its requests run the members' routes. */
export type Mode = 'proxy' | 'hybrid' | 'local' | 'group';
/** The registry a request is for, as configured. */
export interface RegistryInfo<Cfg = unknown> {
  name: string;
  type: string;
  mode: Mode;
  /** The upstream base without a trailing slash; absent in local mode. */
  upstream?: string;
  metadataTtlSecs: number;
  /**
   * The security profile's cool-down (`min_release_age_secs`; 0 or absent: none). The runtime refuses an
   * artifact whose `publishedAt` is younger; a kind with `publishTimes` also drops such versions from
   * the listings it serves, so clients resolve to an older one.
   */
  minReleaseAgeSecs?: number;
  /** The kind's own [[registries]] keys, validated against its configSchema. */
  config: Cfg;
}
