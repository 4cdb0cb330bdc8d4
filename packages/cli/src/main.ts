import { RequestError } from './client.js';
import { accessCheck } from './commands/access-check.js';
import { audit } from './commands/audit.js';
import { auditLog, exportAuditLog } from './commands/audit-log.js';
import { block, blocks, unblock } from './commands/blocks.js';
import { cache } from './commands/cache.js';
import { cleanup } from './commands/cleanup.js';
import { check } from './commands/check.js';
import { events } from './commands/events.js';
import { webhooks } from './commands/webhooks.js';
import { exposure, flags } from './commands/flags.js';
import { health } from './commands/health.js';
import { ipBlocks } from './commands/ip-blocks.js';
import { waivers } from './commands/waivers.js';
import { lockfile, warm } from './commands/lockfile.js';
import { login } from './commands/login.js';
import { oci } from './commands/oci.js';
import { packages } from './commands/packages.js';
import { policies } from './commands/policies.js';
import { reload } from './commands/reload.js';
import { sbom } from './commands/sbom.js';
import { token } from './commands/token.js';
import { upstream } from './commands/upstream.js';
import { users } from './commands/users.js';
import { stdio, type Command, type Io } from './io.js';
import { HELP, UsageError } from './usage.js';

export type { Io } from './io.js';

/** serve, migrate and init load the runtime and every plugin; admin commands need none of it, so start fast. */
const server =
  (name: 'serve' | 'migrateCommand' | 'init'): Command =>
  async (argv, io) => {
    // A server stays up: its young generation is kept from growing while everything loads (decision 0032).
    if (name === 'serve') (await import('@hub/runtime/startup-heap')).holdYoungGeneration();
    return (await import('./commands/server.js'))[name](argv, io);
  };

/** Every command by name: main() dispatches on it, and the parity test reads the routes each declares. */
export const COMMANDS: Record<string, Command> = {
  serve: server('serve'),
  migrate: server('migrateCommand'),
  init: server('init'),
  'audit-log': auditLog,
  audit,
  'export-audit-log': exportAuditLog,
  users,
  token,
  'ip-blocks': ipBlocks,
  block,
  unblock,
  blocks,
  waivers,
  packages,
  oci,
  policies,
  'access-check': accessCheck,
  cache,
  cleanup,
  reload,
  upstream,
  events,
  webhooks,
  health,
  flags,
  exposure,
  sbom,
  check,
  lockfile,
  warm,
  login,
};

/** Runs one command; returns the exit code (0 ok, 1 failed or refused, 2 bad usage). Never throws, never prints a stack. */
export async function main(argv: string[], io: Io = stdio): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    if (!cmd || cmd === '-h' || cmd === '--help' || cmd === 'help') return (io.out(`${HELP.main}\n`), cmd ? 0 : 2);
    if (cmd === '-v' || cmd === '--version') return (io.out(`${(await import('./commands/server.js')).VERSION}\n`), 0);
    const run = COMMANDS[cmd];
    if (!run) throw new UsageError(`unknown command "${cmd}"`);
    return await run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      const help = e.command ?? (cmd && COMMANDS[cmd] ? cmd : undefined);
      io.err(`hub: ${e.message}\nRun 'hub ${help ? `${help} ` : ''}--help' for usage.\n`);
      return 2;
    }
    if (e instanceof RequestError) {
      io.err(`hub: ${e.message}\n`);
      return 1;
    }
    // ConfigError, StartupError and anything unexpected: the message only, never the stack.
    io.err(`hub: ${(e as Error)?.message ?? String(e)}\n`);
    return 1;
  }
}
