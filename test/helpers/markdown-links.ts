import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';

/**
 * The relative links of Markdown files, checked as the repository host renders them (issue #29): every link and
 * image must name a file or folder that exists, and every `#anchor` a heading of its target, slugged as GitHub
 * slugs headings (github-slugger, one slugger per file, so a second "Usage" is `usage-1`). External links
 * (http, https, mailto) are not fetched.
 */

const md = new MarkdownIt({ html: true });

/** README.md and every .md file under docs/, as paths relative to `root`. */
export function markdownFiles(root: string): string[] {
  const docs = readdirSync(path.join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => path.join('docs', file));
  return ['README.md', ...docs.sort()];
}

/** The text a heading shows (code spans and link texts included, markup left out): what GitHub slugs. */
function headingText(inline: Token): string {
  return (inline.children ?? [])
    .filter((child) => child.type === 'text' || child.type === 'code_inline')
    .map((child) => child.content)
    .join('');
}

/** The anchors of a Markdown text's headings, in GitHub's spelling. */
export function headingAnchors(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const tokens = md.parse(markdown, {});
  const anchors = new Set<string>();
  tokens.forEach((token, i) => {
    const inline = tokens[i + 1];
    if (token.type === 'heading_open' && inline?.type === 'inline') anchors.add(slugger.slug(headingText(inline)));
  });
  return anchors;
}

/** Every link and image target of a Markdown text, in order. */
function targets(markdown: string): string[] {
  const found: string[] = [];
  const walk = (tokens: readonly Token[]) => {
    for (const token of tokens) {
      if (token.type === 'link_open') found.push(token.attrGet('href') ?? '');
      if (token.type === 'image') found.push(token.attrGet('src') ?? '');
      if (token.children) walk(token.children);
    }
  };
  walk(md.parse(markdown, {}));
  return found;
}

const EXTERNAL = /^(https?:|mailto:)/i;

/** `file: target (why)` for every relative link of `files` (relative to `root`) that does not resolve. */
export function brokenLinks(root: string, files: readonly string[]): string[] {
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    let known = anchorsOf.get(file);
    if (!known) anchorsOf.set(file, (known = headingAnchors(readFileSync(file, 'utf8'))));
    return known;
  };
  const broken: string[] = [];
  for (const file of files) {
    const full = path.join(root, file);
    for (const target of targets(readFileSync(full, 'utf8'))) {
      if (EXTERNAL.test(target)) continue;
      const hash = target.indexOf('#');
      const linkPath = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const resolved = linkPath === '' ? full : path.resolve(path.dirname(full), linkPath);
      if (linkPath.startsWith('/') || !resolved.startsWith(root + path.sep)) {
        broken.push(`${file}: ${target} (outside the repository)`);
      } else if (!existsSync(resolved)) {
        broken.push(`${file}: ${target} (no such file)`);
      } else if (anchor !== undefined) {
        if (!statSync(resolved).isFile() || !resolved.endsWith('.md')) broken.push(`${file}: ${target} (an anchor into a file that is not Markdown)`);
        else if (!anchors(resolved).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
  }
  return broken;
}
