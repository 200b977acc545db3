import path from 'node:path';
import { inWords, type Var } from './declare.js';
import { SECTIONS, VARS } from './vars.js';

/**
 * The configuration reference, rendered from the declarations (vars.ts): docs/configuration.md as Markdown
 * (`npm run docs:config`) and the same content as plain text for a terminal (`--help-config`).
 */

const TITLE = 'Configuration';

/** The page's introduction, Markdown; paragraphs and list items are separate strings. */
const INTRO: readonly string[] = [
  'The service reads its configuration from environment variables, once at start. ' +
    'An invalid value stops the process before anything starts, with a message naming the variable (`configuration error: ...`).',
  '- An unset variable, or one that is empty or only whitespace, takes its default.\n' +
    '- Booleans are `true`, `1` or `yes`, and `false`, `0` or `no`, in any case.\n' +
    '- A variable marked "Read only with" is ignored unless the other variable is set (to that value): the feature it belongs to is off otherwise.\n' +
    '- Secrets carry credentials: an error message never repeats their value.',
  'The same reference is printed by `npm start -- --help-config` (or `node dist/server.js --help-config`), which starts nothing.',
];

const GENERATED_NOTE = '<!-- Generated from src/config/vars.ts by `npm run docs:config`: edit the declarations there, not this page. -->';

const TYPE_WORDS: Record<Var<unknown>['type'], string> = {
  integer: 'integer',
  boolean: 'boolean',
  enum: 'keyword',
  string: 'string',
  url: 'URL',
  list: 'comma list',
  path: 'file path',
};

interface Entry {
  readonly name: string;
  /** Markdown. */
  readonly description: string;
  /** Label and value (Markdown). */
  readonly facts: readonly (readonly [string, string])[];
}

function defaultFact(v: Var<unknown>): string {
  if (v.defaultNote !== undefined) return v.defaultNote;
  if (v.default === undefined) return 'unset';
  const words = v.type === 'integer' ? inWords(Number(v.default), v.unit) : undefined;
  return words ? `\`${v.default}\` (${words})` : `\`${v.default}\``;
}

function onlyWithFact(onlyWith: string): string {
  return onlyWith.includes('=') ? `\`${onlyWith}\`` : `\`${onlyWith}\` set`;
}

function entry(name: string, v: Var<unknown>): Entry {
  const facts: [string, string][] = [['Type', v.unit ? `${TYPE_WORDS[v.type]} (${v.unit})` : TYPE_WORDS[v.type]]];
  if (v.range !== undefined) facts.push([v.type === 'integer' ? 'Range' : v.type === 'enum' || v.type === 'boolean' ? 'Values' : 'Format', v.range]);
  facts.push(['Default', defaultFact(v)]);
  if (v.onlyWith !== undefined) facts.push(['Read only with', onlyWithFact(v.onlyWith)]);
  if (v.secret) facts.push(['Secret', 'yes']);
  return { name, description: v.description, facts };
}

/** The sections in order, each with its variables in declaration order; a variable in no known section is a programming error. */
function model() {
  const all = Object.entries(VARS) as [string, Var<unknown>][];
  const unknown = all.filter(([, v]) => !SECTIONS.some((s) => s.id === v.section));
  if (unknown.length > 0) throw new Error(`variables in no section of SECTIONS: ${unknown.map(([name]) => name).join(', ')}`);
  return SECTIONS.map((section) => ({ section, entries: all.filter(([, v]) => v.section === section.id).map(([name, v]) => entry(name, v)) }));
}

/** GitHub's heading anchor for the simple titles used here: lower case, punctuation dropped, spaces as hyphens. */
function anchor(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}

export function renderConfigMarkdown(): string {
  const out: string[] = [`# ${TITLE}`, GENERATED_NOTE, ...INTRO];
  const sections = model();
  out.push(`Sections:\n\n${sections.map(({ section }) => `- [${section.title}](#${anchor(section.title)})`).join('\n')}`);
  for (const { section, entries } of sections) {
    out.push(`## ${section.title}`);
    if (section.intro) out.push(section.intro);
    for (const e of entries) {
      out.push(`### \`${e.name}\``, e.description, e.facts.map(([label, value]) => `- ${label}: ${value}`).join('\n'));
    }
  }
  return `${out.join('\n\n')}\n`;
}

/** Markdown inline syntax as a terminal shows it: no backticks, links as `text (target)`, relative targets from the project root. */
function plain(markdown: string): string {
  return markdown
    .replace(/\[([^\]]+)\]\(([^)]+)\)/g, (_, label: string, href: string) => {
      const target = /^[a-z]+:/.test(href) ? href : path.posix.normalize(`docs/${href}`);
      return `${label} (${target})`;
    })
    .replace(/`([^`]*)`/g, '$1');
}

/** Words filled into lines of at most `width` characters, the first after `first`, the others after `rest` (a longer word gets a line of its own). */
function wrap(words: string, first: string, rest = first, width = 80): string[] {
  const lines: string[] = [];
  let line = '';
  let prefix = first;
  for (const word of words.split(/\s+/).filter(Boolean)) {
    if (line && prefix.length + line.length + 1 + word.length > width) {
      lines.push(prefix + line);
      line = word;
      prefix = rest;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(prefix + line);
  return lines;
}

/** A Markdown block (paragraph or list) as wrapped plain text; list items keep their dash and hang under it. */
function block(markdown: string, indent: string): string[] {
  return markdown.split('\n').flatMap((line) => (line.startsWith('- ') ? wrap(plain(line.slice(2)), `${indent}- `, `${indent}  `) : wrap(plain(line), indent)));
}

export function renderConfigText(): string {
  const out: string[] = [TITLE.toUpperCase(), ''];
  for (const paragraph of INTRO) out.push(...block(paragraph, ''), '');
  for (const { section, entries } of model()) {
    out.push(section.title.toUpperCase(), '');
    if (section.intro) out.push(...block(section.intro, ''), '');
    for (const e of entries) {
      out.push(e.name);
      for (const paragraph of e.description.split('\n\n')) out.push(...block(paragraph, '    '), '');
      const width = Math.max(...e.facts.map(([label]) => label.length)) + 2;
      for (const [label, value] of e.facts) out.push(...wrap(plain(value), `    ${`${label}:`.padEnd(width)}`, ' '.repeat(4 + width)));
      out.push('');
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}
