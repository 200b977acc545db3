import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { AdminOutput } from './admin-cli.js';
import { ConfigError, type AppConfig } from './config.js';
import { unixNow } from './context.js';
import { openDatabase, type DatabaseHandle } from './db/database.js';
import { pendingMigrations } from './db/migrator.js';
import { problemsOf, verifyStore, type Finding, type VerifyReport } from './services/store-verify.js';
import { createObjectStore } from './storage/index.js';

/**
 * `npm run admin -- verify` (issue #37): checks the object store against the database the service uses (the same
 * environment: DATABASE_URL, DAM_DATA_DIR, DAM_STORAGE, DAM_S3_*), changing neither, while the service runs.
 * Exit code 0: they agree; 1: something is missing, damaged or orphaned; 2: the check could not run (usage,
 * configuration, a database or store that cannot be read, a schema that is behind).
 */
export const VERIFY_USAGE = 'verify [--no-hash] [--examples N]';

const DEFAULT_EXAMPLES = 10;

function parse(args: readonly string[]): { hash: boolean; examples: number } | string {
  try {
    const { values } = parseArgs({
      args: [...args],
      options: { 'no-hash': { type: 'boolean' }, examples: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    });
    const examples = values.examples === undefined ? DEFAULT_EXAMPLES : Number(values.examples);
    if (!Number.isInteger(examples) || examples < 0) return `--examples takes a whole number, not ${values.examples}`;
    return { hash: !values['no-hash'], examples };
  } catch (err) {
    return (err as Error).message;
  }
}

/** The database, opened without migrating or creating anything; a message when it cannot be. */
async function openExisting(config: AppConfig): Promise<DatabaseHandle | string> {
  if (config.databaseUrl.startsWith('sqlite:')) {
    const file = config.databaseUrl.slice('sqlite:'.length);
    if (file === ':memory:' || !existsSync(file)) return `No database at ${config.databaseUrl} (set DATABASE_URL or DAM_DATA_DIR as the service has them)`;
  }
  const database = openDatabase(config.databaseUrl);
  try {
    await database.ping();
    const pending = await pendingMigrations(database);
    if (pending.length > 0) {
      await database.close();
      return `The database schema is behind this version (${pending.length} migrations pending, first ${pending[0]}): run npm run migrate or start the service first`;
    }
    return database;
  } catch (err) {
    await database.close().catch(() => undefined);
    return `Cannot read the database: ${(err as Error).message}`;
  }
}

const storeName = (config: AppConfig): string =>
  config.storage.kind === 's3'
    ? `s3 bucket ${config.storage.bucket}${config.storage.endpoint ? ` at ${config.storage.endpoint}` : ''}`
    : `local store ${path.join(config.dataDir, 'storage')}`;

function print(output: AdminOutput, report: VerifyReport, config: AppConfig, hash: boolean): void {
  output.out(
    `Checked ${report.checked} objects the database references (${hash ? `${report.hashed} hashed` : 'sizes only, --no-hash'}) ` +
      `and ${report.listed} objects in the ${storeName(config)}.`,
  );
  const line = (title: string, finding: Finding, what: string) => {
    output.out(`${title}: ${finding.count}${finding.count > 0 ? ` (${what})` : ''}`);
    for (const example of finding.examples) output.out(`  ${example}`);
    if (finding.count > finding.examples.length) output.out(`  ... and ${finding.count - finding.examples.length} more`);
  };
  line('missing', report.missing, 'a row references an object the store does not hold');
  line('size mismatches', report.sizeMismatches, 'the object is not as long as its row says');
  line('hash mismatches', report.hashMismatches, "the object's bytes do not hash to its row's SHA-256");
  line('orphans', report.orphans, 'objects of the asset layout that no row accounts for');
  if (report.outsideLayout > 0) output.out(`(${report.outsideLayout} object${report.outsideLayout === 1 ? '' : 's'} outside the asset layout not judged)`);
  const problems = problemsOf(report);
  output.out(problems === 0 ? 'OK: the store and the database agree.' : `PROBLEMS: ${problems} (see docs/operations.md, "Checking the store against the database").`);
}

export async function runVerify(args: readonly string[], output: AdminOutput, config: AppConfig | (() => AppConfig)): Promise<number> {
  const options = parse(args);
  if (typeof options === 'string') {
    output.err(options);
    output.err(`usage: npm run admin -- ${VERIFY_USAGE}`);
    return 2;
  }
  let cfg: AppConfig;
  try {
    cfg = typeof config === 'function' ? config() : config;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    output.err(`configuration error: ${err.message}`);
    return 2;
  }
  const database = await openExisting(cfg);
  if (typeof database === 'string') {
    output.err(database);
    return 2;
  }
  try {
    // Nothing is signed or written: the local store's registry (parts, CORS rules) is never reached by a check.
    const store = createObjectStore(cfg, database.db, unixNow, { current: 'admin-verify', previous: [] });
    let report: VerifyReport;
    try {
      report = await verifyStore(database.db, store, options);
    } catch (err) {
      output.err(`The check could not finish: ${(err as Error).message}`);
      return 2;
    }
    print(output, report, cfg, options.hash);
    return problemsOf(report) === 0 ? 0 : 1;
  } finally {
    await database.close();
  }
}
