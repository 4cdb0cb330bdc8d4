import fs from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, StartupError, VERSION, checkPlugins, createDb, createHub, detectUpstreams, loadConfig, migrate, renderInitToml, runtimeMigrations } from '@hub/runtime';
import { configSource } from './config.js';
import { defaultPlugins } from './plugins.js';
import { HELP, UsageError } from './usage.js';

export interface Io {
  out(s: string): void;
  err(s: string): void;
  env: NodeJS.ProcessEnv;
}

const stdio: Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s), env: process.env };

type Values = Record<string, string | boolean | undefined>;

function args(argv: string[], options: NonNullable<ParseArgsConfig['options']>): { values: Values } {
  try {
    const { values } = parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' }, ...options }, allowPositionals: false, strict: true });
    return { values: values as Values };
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

async function serve(argv: string[], io: Io): Promise<number> {
  const { values } = args(argv, { config: { type: 'string', short: 'c' }, listen: { type: 'string', short: 'l' } });
  if (values.help) return (io.out(`${HELP.serve}\n`), 0);
  const hub = await createHub({ plugins: await defaultPlugins(), env: io.env, ...configSource(values.config as string | undefined, io.env) });
  const url = await hub.listen(values.listen as string | undefined);
  io.err(`hub ${VERSION} serving ${[...hub.registries.keys()].map((n) => `${url}/proxy/${n}/`).join(', ')}\n`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      hub.log.info({ signal }, 'shutting down: finishing running requests');
      resolve();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  await hub.close();
  return 0;
}

async function migrateCommand(argv: string[], io: Io): Promise<number> {
  const { values } = args(argv, { config: { type: 'string', short: 'c' } });
  if (values.help) return (io.out(`${HELP.migrate}\n`), 0);
  const { kinds, others } = checkPlugins(await defaultPlugins());
  const src = configSource(values.config as string | undefined, io.env);
  const kindSchemas = new Map([...kinds.values()].filter((k) => k.configSchema).map((k) => [k.id, k.configSchema!]));
  const config = src.config ?? loadConfig({ path: src.configFile, env: io.env, kindSchemas });
  const db = createDb(config.database);
  try {
    const ran = await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }, ...others]);
    io.out(ran.length ? `applied ${ran.length} migration(s):\n${ran.map((n) => `  ${n}\n`).join('')}` : 'the database is up to date\n');
  } finally {
    await db.destroy();
  }
  return 0;
}

async function init(argv: string[], io: Io): Promise<number> {
  const { values } = args(argv, { output: { type: 'string', short: 'o' }, force: { type: 'boolean', short: 'f' } });
  if (values.help) return (io.out(`${HELP.init}\n`), 0);
  const found = await detectUpstreams();
  const toml = renderInitToml(found);
  const output = (values.output as string | undefined) ?? 'hub.toml';
  if (output === '-') io.out(toml);
  else {
    if (fs.existsSync(output) && !values.force) throw new UsageError(`${output} exists; pass --force to overwrite it`);
    fs.writeFileSync(output, toml);
    io.err(`wrote ${output} with ${found.length} registr${found.length === 1 ? 'y' : 'ies'}${found.length ? `: ${found.map((f: { name: string; source: string }) => `${f.name} (from ${f.source})`).join(', ')}` : ''}\n`);
  }
  return 0;
}

const COMMANDS: Record<string, (argv: string[], io: Io) => Promise<number>> = { serve, migrate: migrateCommand, init };

/** Runs one command; returns the exit code (0 ok, 1 failed or refused, 2 bad usage). */
export async function main(argv: string[], io: Io = stdio): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    if (!cmd || cmd === '-h' || cmd === '--help' || cmd === 'help') return (io.out(`${HELP.main}\n`), cmd ? 0 : 2);
    if (cmd === '-v' || cmd === '--version') return (io.out(`${VERSION}\n`), 0);
    const run = COMMANDS[cmd];
    if (!run) throw new UsageError(`unknown command "${cmd}"`);
    return await run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`hub: ${e.message}\nRun 'hub ${cmd && COMMANDS[cmd] ? `${cmd} ` : ''}--help' for usage.\n`);
      return 2;
    }
    if (e instanceof ConfigError || e instanceof StartupError) {
      io.err(`hub: ${e.message}\n`);
      return 1;
    }
    io.err(`hub: ${(e as Error).message}\n`);
    return 1;
  }
}
