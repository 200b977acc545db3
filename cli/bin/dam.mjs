#!/usr/bin/env node
// The `dam` command (package.json "bin"). The CLI is TypeScript (cli/src, with the SDK in sdk/src); this launcher
// runs its compiled output, compiling it first when it is missing or older than the sources (cli/build.mjs), so
// `npx dam` works straight after `npm ci` with no separate build step.
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { ensureBuilt, entry } from '../build.mjs';

const problem = ensureBuilt();
if (problem) {
  process.stderr.write(`dam: ${problem}\n`);
  process.exit(1);
}
await import(pathToFileURL(entry).href);
