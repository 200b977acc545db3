import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/databases.js';
import { brokenLinks, headingAnchors, markdownFiles } from './helpers/markdown-links.js';

const ROOT = path.resolve(import.meta.dirname, '..');

describe('links of README.md and docs/ (issue #29)', () => {
  it('every relative link, image and #anchor resolves', () => {
    const files = markdownFiles(ROOT);
    expect(files).toContain('README.md');
    expect(files).toContain(path.join('docs', 'ARCHITECTURE.md'));
    expect(brokenLinks(ROOT, files)).toEqual([]);
  });

  it('slugs headings as GitHub does, counting repeated headings', () => {
    const anchors = headingAnchors(
      ['# Title', '## Writing: `archiveStream(store, items, log)`', '## Usage', '### Usage', '## Filter grammar (seed 4.1)', '## [A link](x.md) here'].join('\n\n'),
    );
    expect([...anchors]).toEqual(['title', 'writing-archivestreamstore-items-log', 'usage', 'usage-1', 'filter-grammar-seed-41', 'a-link-here']);
  });

  it('reports missing files, missing headings and links out of the repository', () => {
    const root = tempDir('docs-links');
    mkdirSync(path.join(root, 'docs'));
    writeFileSync(path.join(root, 'docs', 'a.md'), '# A\n\n## Same heading\n\n## Same heading\n');
    writeFileSync(
      path.join(root, 'README.md'),
      [
        '[ok](docs/a.md) [ok too](docs/a.md#same-heading-1) [here](#readme) [external](https://example.com/nowhere)',
        '[missing file](docs/b.md) [missing heading](docs/a.md#other) [third](docs/a.md#same-heading-2) [up](../outside.md)',
        '![missing image](docs/images/x.png) [self](#nothing)',
        '',
        '# Readme',
      ].join('\n'),
    );
    expect(brokenLinks(root, markdownFiles(root))).toEqual([
      'README.md: docs/b.md (no such file)',
      'README.md: docs/a.md#other (no such heading)',
      'README.md: docs/a.md#same-heading-2 (no such heading)',
      'README.md: ../outside.md (outside the repository)',
      'README.md: docs/images/x.png (no such file)',
      'README.md: #nothing (no such heading)',
    ]);
  });
});
