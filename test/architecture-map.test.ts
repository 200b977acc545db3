import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/ARCHITECTURE.md stays true as the map of the code (issue #29): its "Modules" section names every top-level
 * folder of src/ and no folder that does not exist, and the overview links every page of docs/architecture/.
 */

const ROOT = path.resolve(import.meta.dirname, '..');
const overview = readFileSync(path.join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');

/** The "## Modules" section of the overview, up to the next second-level heading. */
function modulesSection(): string {
  const start = overview.search(/^## Modules$/m);
  expect(start, 'docs/ARCHITECTURE.md has a "## Modules" section').toBeGreaterThanOrEqual(0);
  const rest = overview.slice(start + 1);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Every `src/<folder>/` the text names in code spans. */
function namedFolders(text: string): Set<string> {
  return new Set([...text.matchAll(/`src\/([\w.-]+)\/`/g)].map((m) => m[1] ?? ''));
}

describe('docs/ARCHITECTURE.md as the map of src/ (issue #29)', () => {
  const named = namedFolders(modulesSection());
  const folders = readdirSync(path.join(ROOT, 'src')).filter((entry) => statSync(path.join(ROOT, 'src', entry)).isDirectory());

  it('names every top-level folder of src/', () => {
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((folder) => !named.has(folder))).toEqual([]);
  });

  it('names only folders that exist', () => {
    expect([...named].filter((folder) => !existsSync(path.join(ROOT, 'src', folder)))).toEqual([]);
  });

  it('links every page of docs/architecture/', () => {
    const pages = readdirSync(path.join(ROOT, 'docs', 'architecture')).filter((file) => file.endsWith('.md'));
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.filter((page) => !overview.includes(`(architecture/${page}`))).toEqual([]);
  });
});
