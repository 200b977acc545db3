#!/usr/bin/env node
// `npm run admin -- reset-password <email>` and `npm run admin -- make-admin <email>` (issue #27): see src/admin-cli.ts.
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { runAdminCommand } = await import(pathToFileURL(path.join(ROOT, 'dist', 'admin-cli.js')).href);
const { ConfigError } = await import(pathToFileURL(path.join(ROOT, 'dist', 'config.js')).href);
try {
  process.exitCode = await runAdminCommand(process.argv.slice(2), { out: (l) => console.log(l), err: (l) => console.error(l) });
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`configuration error: ${err.message}`);
  process.exitCode = 2;
}
