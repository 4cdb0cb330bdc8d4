import pino, { type Logger } from 'pino';

/** Redacts credentials wherever they might appear in a log object; proxy URLs may carry some too (decision 0047). */
const REDACT = ['req.headers.authorization', 'headers.authorization', '*.upstream_auth', '*.secret', '*.token', 'upstream_auth', 'password', 'upstream_proxy', '*.upstream_proxy', 'registries[*].proxy', '*.registries[*].proxy'];

export function createLogger(opts: { level?: string; destination?: pino.DestinationStream } = {}): Logger {
  return pino({ level: opts.level ?? process.env.HUB_LOG_LEVEL ?? 'info', redact: REDACT, base: undefined }, opts.destination);
}

export type { Logger };
