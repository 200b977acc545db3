import { buildApp } from './app.js';
import { ConfigError, loadConfig, renderConfigText } from './config.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrator.js';

/**
 * Process entry: `node dist/server.js` listens; `--migrate-only` migrates and exits; `--help-config` prints
 * the configuration reference (docs/configuration.md as plain text) and exits without reading the environment.
 */
async function main(): Promise<void> {
  if (process.argv.includes('--help-config')) {
    process.stdout.write(renderConfigText());
    return;
  }
  const config = loadConfig();

  if (process.argv.includes('--migrate-only')) {
    const handle = openDatabase(config.databaseUrl);
    const applied = await migrateToLatest(handle);
    await handle.close();
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    return;
  }

  const app = await buildApp(config);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // Stop accepting, let in-flight requests finish, close the database; force exit after 10 s.
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    // A keep-alive connection whose response just finished may not be idle yet when close() starts: retry.
    setInterval(() => app.server.closeIdleConnections(), 250).unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  // One plain line for the person who ran `npm start`, apart from the JSON logs.
  if (config.role === 'worker') {
    console.log(`DAM worker is running jobs and housekeeping (health at http://${config.host}:${config.port}/healthz)`);
    return;
  }
  console.log(`DAM is ready: open ${config.publicUrl}/ in a browser (API documentation at ${config.publicUrl}/docs)`);
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(`configuration error: ${err.message}`);
  } else {
    console.error(err);
  }
  process.exit(1);
});
