import { baseCompile } from '@intlify/message-compiler';
import { describe, expect, it } from 'vitest';
import de from '../src/i18n/messages/de';
import en from '../src/i18n/messages/en';
import es from '../src/i18n/messages/es';
import fr from '../src/i18n/messages/fr';

/**
 * Issue #29: every language has exactly English's keys, each message with English's placeholders and as many plural
 * forms, and every message is valid vue-i18n syntax (a stray "@" or "{" breaks a message at run time).
 */

type Tree = { [key: string]: string | Tree };

function leaves(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [p, v] of leaves(value, path)) out.set(p, v);
  }
  return out;
}

const placeholders = (message: string) => [...new Set([...message.matchAll(/\{\s*([A-Za-z_]\w*)\s*\}/g)].map((m) => m[1] ?? ''))].sort();
const forms = (message: string) => message.split(/\s\|\s/).length;

const english = leaves(en);
const others = { de, fr, es } as unknown as Record<string, Tree>;

describe('message catalogues (issue #29)', () => {
  it.each(Object.keys(others))('%s has every key English has, and no other', (locale) => {
    const keys = [...leaves(others[locale]!).keys()];
    expect(keys.filter((k) => !english.has(k)), 'keys English does not have').toEqual([]);
    expect([...english.keys()].filter((k) => !keys.includes(k)), 'keys missing').toEqual([]);
  });

  it.each(Object.keys(others))("%s's messages have English's placeholders and plural forms", (locale) => {
    const problems: string[] = [];
    for (const [key, message] of leaves(others[locale]!)) {
      const source = english.get(key);
      if (source === undefined) continue;
      if (placeholders(message).join() !== placeholders(source).join()) problems.push(`${key}: {${placeholders(message).join('}, {')}} instead of {${placeholders(source).join('}, {')}}`);
      if (forms(message) !== forms(source)) problems.push(`${key}: ${forms(message)} plural forms instead of ${forms(source)}`);
    }
    expect(problems).toEqual([]);
  });

  it.each(['en', ...Object.keys(others)])('every %s message compiles', (locale) => {
    const tree = locale === 'en' ? (en as unknown as Tree) : others[locale]!;
    const problems: string[] = [];
    for (const [key, message] of leaves(tree)) {
      baseCompile(message, { onError: (error) => problems.push(`${key}: ${error.message}`) });
    }
    expect(problems).toEqual([]);
  });

  it('no message is empty', () => {
    for (const tree of [en, ...Object.values(others)] as unknown as Tree[]) {
      expect([...leaves(tree)].filter(([, m]) => m.trim() === '').map(([k]) => k)).toEqual([]);
    }
  });
});
