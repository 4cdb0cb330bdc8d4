/** The commands that run hub itself rather than talk to it: serve, migrate, init. Loaded on demand. */
import fs from 'node:fs';
import { VERSION, createHub } from '@hub/runtime';
import {
  checkPlugins,
  composePlugins,
  createDb,
  migrate,
  readConfigFile,
  runtimeMigrations,
} from '@hub/runtime/internal';
import { homedir } from 'node:os';
import { clientNetworks, detectUpstreams, renderInitToml } from '../init.js';
import { configSource } from '../config.js';
import type { Io } from '../io.js';
import { parse } from '../options.js';
import { defaultPlugins, pluginsForConfig } from '../plugins.js';
import { HELP, UsageError } from '../usage.js';

export async function serve(argv: string[], io: Io): Promise<number> {
  const { values } = parse(
    argv,
    { config: { type: 'string', short: 'c' }, listen: { type: 'string', short: 'l' } },
    { command: 'serve' },
  );
  if (values.help) return (io.out(`${HELP.serve}\n`), 0);
  const { note, ...source } = configSource(values.config as string | undefined, io.env);
  if (note) io.err(`${note}\n`);
  // Read once: the kinds to load are picked from the same text the hub then loads.
  const configText = source.configFile === undefined ? undefined : readConfigFile(source.configFile);
  const hub = await createHub({
    plugins: await pluginsForConfig({ ...source, configText }),
    env: io.env,
    ...source,
    configText,
  });
  // SIGTERM drains first (decision 0038): not ready, still serving, for drain_secs. SIGINT, or a second signal, stops now.
  const now = new AbortController();
  let first: ((s: NodeJS.Signals) => void) | undefined;
  const signal = new Promise<NodeJS.Signals>((resolve) => (first = resolve));
  const onSignal = (s: NodeJS.Signals) => {
    if (!first) return now.abort();
    first(s);
    first = undefined;
    if (s === 'SIGINT') now.abort();
  };
  // SIGHUP re-reads hub.toml on this process (decision 0057); the reloader logs and audits the outcome.
  const onHangup = () =>
    void hub.configReload
      .local({ by: null })
      .catch((e: Error) => hub.log.error({ err: e.message }, 'configuration reload failed'));
  // Handlers go in before "serving" is printed: a supervisor that signals on that line must not meet the default action.
  process.on('SIGTERM', onSignal).on('SIGINT', onSignal).on('SIGHUP', onHangup);
  try {
    const url = await hub.listen(values.listen as string | undefined);
    io.err(`hub ${VERSION} serving ${[...hub.registries.keys()].map((n) => `${url}/proxy/${n}/`).join(', ')}\n`);
    const got = await signal;
    if (got === 'SIGTERM' && hub.config.server.drain_secs > 0 && !now.signal.aborted) {
      hub.log.info(
        { signal: got, drain_secs: hub.config.server.drain_secs },
        'draining: /readyz answers 503 while requests are still served',
      );
      await hub.drain(now.signal);
    }
    hub.log.info({ signal: got }, 'shutting down: finishing running requests');
    await hub.close();
  } finally {
    process.off('SIGTERM', onSignal).off('SIGINT', onSignal).off('SIGHUP', onHangup);
  }
  return 0;
}

export async function migrateCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, { config: { type: 'string', short: 'c' } }, { command: 'migrate' });
  if (values.help) return (io.out(`${HELP.migrate}\n`), 0);
  const { note: _note, ...source } = configSource(values.config as string | undefined, io.env);
  const { others, config } = await composePlugins({ plugins: await defaultPlugins(), env: io.env, ...source });
  const db = createDb(config.database);
  try {
    const ran = await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }, ...others]);
    io.out(
      ran.length
        ? `applied ${ran.length} migration(s):\n${ran.map((n) => `  ${n}\n`).join('')}`
        : 'the database is up to date\n',
    );
  } finally {
    await db.destroy();
  }
  return 0;
}

export async function init(argv: string[], io: Io): Promise<number> {
  const { values } = parse(
    argv,
    { output: { type: 'string', short: 'o' }, force: { type: 'boolean', short: 'f' } },
    { command: 'init' },
  );
  if (values.help) return (io.out(`${HELP.init}\n`), 0);
  const output = (values.output as string | undefined) ?? 'hub.toml';
  // Refuse before asking the machine's tools, which can take seconds.
  if (output !== '-' && fs.existsSync(output) && !values.force)
    throw new UsageError(`${output} exists; pass --force to overwrite it`, 'init');
  const found = await detectUpstreams(checkPlugins(await defaultPlugins()).kinds.values());
  const toml = renderInitToml(found, {
    networks: clientNetworks({ env: io.env, home: io.env.HOME || homedir(), cwd: process.cwd() }),
  });
  if (output === '-') io.out(toml);
  else {
    fs.writeFileSync(output, toml);
    io.err(
      `wrote ${output} with ${found.length} registr${found.length === 1 ? 'y' : 'ies'}${found.length ? `: ${found.map((f: { name: string; source: string }) => `${f.name} (from ${f.source})`).join(', ')}` : ''}\n`,
    );
  }
  return 0;
}

export { VERSION };
