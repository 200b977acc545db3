import process from 'node:process';
import { loadConfig, type AppConfig } from './config.js';
import { unixNow } from './context.js';
import { openMigratedDatabase, type DatabaseHandle } from './db/database.js';
import { findUserByEmail, updateUserAdminFields } from './repositories/users.js';
import { issuePasswordLink } from './services/account-service.js';
import { VERIFY_USAGE, runVerify } from './admin-verify.js';

/**
 * `npm run admin -- <command>` (issue #27): what an operator does on the server when no admin can sign in or
 * there is no SMTP to e-mail a reset. Works on the same database as the service (DATABASE_URL, DAM_DATA_DIR),
 * while it runs.
 *   reset-password <email>   prints a single-use link, valid an hour, that sets the account's password
 *   make-admin <email>       makes the account an instance admin (and enables it)
 *   verify [--no-hash] [--examples N]
 *                            checks the object store against the database, read-only (issue #37; src/admin-verify.ts)
 */
export const ADMIN_USAGE = `usage: npm run admin -- reset-password <email> | make-admin <email> | ${VERIFY_USAGE}`;

export interface AdminOutput {
  out(line: string): void;
  err(line: string): void;
}

/** The environment's configuration, as the service reads it. Nothing here signs: a placeholder secret keeps loadConfig from generating one into the data dir. */
export const environmentConfig = (): AppConfig => loadConfig({ ...process.env, DAM_JWT_SECRET: process.env.DAM_JWT_SECRET || 'x'.repeat(48) });

/** Runs one command; answers the exit code. `config` defaults to the environment's (as the service reads it). */
export async function runAdminCommand(args: readonly string[], output: AdminOutput, config?: AppConfig): Promise<number> {
  const [command, email, ...rest] = args;
  if (command === 'verify') return runVerify(args.slice(1), output, config ?? environmentConfig);
  if (!command || !email || rest.length > 0 || !['reset-password', 'make-admin'].includes(command)) {
    output.err(ADMIN_USAGE);
    return 2;
  }
  const cfg = config ?? environmentConfig();
  const database: DatabaseHandle = await openMigratedDatabase(cfg.databaseUrl);
  try {
    const user = await findUserByEmail(database.db, email);
    if (!user) {
      output.err(`No account with e-mail ${email}`);
      return 1;
    }
    if (command === 'make-admin') {
      await updateUserAdminFields(database.db, user.id, { is_instance_admin: 1, disabled_at: null }, unixNow());
      output.out(`${user.email} is now an instance administrator`);
      return 0;
    }
    const { url, expiresAt } = await issuePasswordLink({ db: database.db, config: cfg, now: unixNow }, user.id, 'reset');
    output.out(`Password link for ${user.email}, valid until ${new Date(expiresAt * 1000).toISOString()} (single use):`);
    output.out(url);
    return 0;
  } finally {
    await database.close();
  }
}
