/// <reference types="node" />
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { NodeTypes, type RootNode, type TemplateChildNode } from '@vue/compiler-dom';
import { parse } from '@vue/compiler-sfc';
import { describe, expect, it } from 'vitest';

/**
 * Issue #29: no user-visible text is written in a template; it comes from the catalogues (web/src/i18n/README.md).
 * Fails on a text node with letters, on a static user-visible attribute with letters (title, placeholder,
 * aria-label…), and on a quoted string with letters inside {{ }} or a bound user-visible attribute (unless it is a
 * message key, "area.key"). IGNORED holds the few texts that are the same in every language.
 */

// The tests run from the repository's root (vitest.config.ts).
const ROOT = resolve(process.cwd(), 'web');
const SRC = join(ROOT, 'src');

/** Texts that stay as they are in every language: the product's name, symbols. */
const IGNORED = new Set(['DAM', 'Google', '×', '✓', '·', '←', '→', '…', '?', 'Esc', 'Shift', 'Enter', 'Tab', 'Ctrl', 'Cmd']);

/** Attributes a user reads or hears (including props that become one: AuthLayout's title, StateMessage's title…). */
const VISIBLE_ATTRIBUTES = new Set(['title', 'subtitle', 'placeholder', 'aria-label', 'aria-description', 'aria-valuetext', 'alt', 'label', 'confirm-label', 'message', 'text']);

const LETTERS = /\p{L}/u;
/** A message key: "area.key", "area.key.${dynamic}" (no spaces, dotted, lower-case first). */
const KEY = /^[a-z][A-Za-z0-9]*(\.[A-Za-z0-9_${}.?]+)+$/;
const STRING_LITERAL = /'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g;

function vueFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return vueFiles(path);
    return entry.name.endsWith('.vue') ? [path] : [];
  });
}

const visibleText = (text: string) => {
  const trimmed = text.trim();
  return trimmed !== '' && LETTERS.test(trimmed) && !IGNORED.has(trimmed);
};

/** Quoted strings with letters in an expression, other than message keys. */
function bareLiterals(expression: string): string[] {
  const found: string[] = [];
  for (const match of expression.matchAll(STRING_LITERAL)) {
    const text = match[1] ?? match[2] ?? match[3] ?? '';
    // Compared, not shown: phase === 'ready'.
    const before = expression.slice(0, match.index);
    const after = expression.slice((match.index ?? 0) + match[0].length);
    if (/[=!]==?\s*$/.test(before) || /^\s*[=!]==?/.test(after)) continue;
    // A template literal's words outside ${…}: `${n} files` has "files".
    const words = text.replace(/\$\{[^}]*\}/g, ' ');
    if (!visibleText(words) || KEY.test(text)) continue;
    found.push(text);
  }
  return found;
}

/** The bare strings of a template, each with where it is. */
function bareStrings(source: string): string[] {
  const { descriptor } = parse(source);
  const ast = descriptor.template?.ast;
  if (!ast) return [];
  const problems: string[] = [];
  const walk = (node: RootNode | TemplateChildNode) => {
    if (node.type === NodeTypes.TEXT && visibleText(node.content)) problems.push(`text "${node.content.trim()}" (line ${node.loc.start.line})`);
    if (node.type === NodeTypes.INTERPOLATION && node.content.type === NodeTypes.SIMPLE_EXPRESSION) {
      for (const text of bareLiterals(node.content.content)) problems.push(`"${text}" in {{ }} (line ${node.loc.start.line})`);
    }
    if (node.type === NodeTypes.ELEMENT) {
      for (const prop of (node).props) {
        if (prop.type === NodeTypes.ATTRIBUTE) {
          const attr = prop;
          if (VISIBLE_ATTRIBUTES.has(attr.name) && attr.value && visibleText(attr.value.content)) {
            problems.push(`${attr.name}="${attr.value.content}" (line ${attr.loc.start.line})`);
          }
        } else if (prop.type === NodeTypes.DIRECTIVE) {
          const dir = prop;
          const arg = dir.arg?.type === NodeTypes.SIMPLE_EXPRESSION ? dir.arg.content : '';
          if (dir.name === 'bind' && VISIBLE_ATTRIBUTES.has(arg) && dir.exp?.type === NodeTypes.SIMPLE_EXPRESSION) {
            for (const text of bareLiterals(dir.exp.content)) problems.push(`"${text}" in :${arg} (line ${dir.loc.start.line})`);
          }
        }
      }
    }
    if ('children' in node) for (const child of node.children as TemplateChildNode[]) walk(child);
    if (node.type === NodeTypes.IF) for (const branch of node.branches) walk(branch);
  };
  walk(ast);
  return problems;
}

const files = vueFiles(SRC).map((path) => ({ path, name: relative(process.cwd(), path).split('\\').join('/') }));

describe('templates have no bare strings (issue #29)', () => {
  it('finds what it should, and leaves keys and symbols alone', () => {
    const found = bareStrings(`<template>
      <p>Hello</p><p>{{ t('area.key') }} ·</p><p>{{ busy ? 'Saving…' : t('common.save') }}</p>
      <input placeholder="Your name" :title="t(\`shell.themes.\${x}\`)" :aria-label="'Close'" class="big" />
      <span title="DAM">?</span><a :to="'/login'">{{ \`\${n} files\` }}</a><p :title="phase === 'ready' ? t('a.b') : ''" />
    </template>`);
    expect(found.map((p) => p.replace(/ \(line \d+\)$/, ''))).toEqual(['text "Hello"', '"Saving…" in {{ }}', 'placeholder="Your name"', '"Close" in :aria-label', '"${n} files" in {{ }}']);
  });

  it.each(files.map((f) => [f.name, f.path]))('%s is clean', (_name, path) => {
    expect(bareStrings(readFileSync(path, 'utf8'))).toEqual([]);
  });
});
