/**
 * Every action the console offers, and the one admin API route it calls (issue 14: each has a CLI
 * counterpart; the parity test lists these with the admin routes and the CLI commands). The SPA calls
 * routes only through this table, so a console button without an entry here cannot exist.
 */
export interface ConsoleAction {
  action: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** The admin route as mounted (`:param` segments are filled in, URL-encoded, by the console). */
  path: string;
}

export const CONSOLE_ACTIONS = [
  { action: 'health', method: 'GET', path: '/api/v1/admin/health' },
  { action: 'upstream_list', method: 'GET', path: '/api/v1/admin/upstream/disappeared' },
  { action: 'upstream_recheck', method: 'POST', path: '/api/v1/admin/upstream/recheck' },
  { action: 'block_list', method: 'GET', path: '/api/v1/admin/blocks' },
  { action: 'block_add', method: 'POST', path: '/api/v1/admin/blocks' },
  { action: 'block_remove', method: 'DELETE', path: '/api/v1/admin/blocks/:id' },
  { action: 'package_list', method: 'GET', path: '/api/v1/admin/packages' },
  { action: 'package_show', method: 'GET', path: '/api/v1/admin/packages/:registry/:package' },
  { action: 'unlist', method: 'POST', path: '/api/v1/admin/unlist' },
  { action: 'relist', method: 'DELETE', path: '/api/v1/admin/unlist' },
  { action: 'purge', method: 'DELETE', path: '/api/v1/admin/cache/:registry/:package/:version' },
  { action: 'user_list', method: 'GET', path: '/api/v1/admin/users' },
  { action: 'user_read', method: 'GET', path: '/api/v1/admin/users/:id' },
  { action: 'user_create', method: 'POST', path: '/api/v1/admin/users' },
  { action: 'user_block', method: 'POST', path: '/api/v1/admin/users/:id/block' },
  { action: 'user_unblock', method: 'POST', path: '/api/v1/admin/users/:id/unblock' },
  { action: 'token_create', method: 'POST', path: '/api/v1/admin/tokens' },
  { action: 'token_revoke', method: 'DELETE', path: '/api/v1/admin/tokens/:id' },
  { action: 'ip_block_list', method: 'GET', path: '/api/v1/admin/ip-blocks' },
  { action: 'ip_block_add', method: 'POST', path: '/api/v1/admin/ip-blocks' },
  { action: 'ip_block_remove', method: 'DELETE', path: '/api/v1/admin/ip-blocks/:ip' },
  { action: 'policy_list', method: 'GET', path: '/api/v1/admin/policies' },
  { action: 'policy_create', method: 'POST', path: '/api/v1/admin/policies' },
  { action: 'policy_delete', method: 'DELETE', path: '/api/v1/admin/policies/:id' },
  { action: 'access_check', method: 'POST', path: '/api/v1/admin/access-check' },
  { action: 'flag_list', method: 'GET', path: '/api/v1/admin/flags' },
  { action: 'exposure', method: 'GET', path: '/api/v1/admin/exposure' },
  { action: 'exposure_export', method: 'GET', path: '/api/v1/admin/exposure/export' },
  { action: 'waiver_list', method: 'GET', path: '/api/v1/admin/waivers' },
  { action: 'audit_log_read', method: 'GET', path: '/api/v1/admin/audit-log' },
  { action: 'audit_log_export', method: 'GET', path: '/api/v1/admin/audit-log/export' },
  { action: 'lockfile_check', method: 'POST', path: '/api/v1/admin/lockfile/check' },
] as const satisfies readonly ConsoleAction[];

export type ConsoleActionName = (typeof CONSOLE_ACTIONS)[number]['action'];
