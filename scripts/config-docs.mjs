#!/usr/bin/env node
// `npm run docs:config`: writes docs/configuration.md from the declarations in src/config/vars.ts (through the
// build in dist/, which the npm script compiles first). test/config-docs.test.ts fails while the page is stale.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderConfigMarkdown } from '../dist/config/docs.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const page = path.join(root, 'docs', 'configuration.md');
writeFileSync(page, renderConfigMarkdown());
process.stdout.write(`wrote ${path.relative(root, page)}\n`);
