import type { PluralizationRule } from 'vue-i18n';
import { SUPPORTED_LOCALES, type AppLocale } from './locales';

/**
 * Plural forms by the language's own rules (Intl.PluralRules), for every supported language. A message has either
 * two forms, `one | other`, or three, `zero | one | other` (the first for a count of 0). "one" is the CLDR
 * category: in French 0 and 1 are singular ("0 fichier", "1 fichier"), in English and German only 1.
 */
function rule(locale: AppLocale): PluralizationRule {
  const rules = new Intl.PluralRules(locale);
  return (choice, choicesLength) => {
    const n = Math.abs(choice);
    if (choicesLength >= 3 && n === 0) return 0;
    const one = rules.select(n) === 'one';
    const offset = choicesLength >= 3 ? 1 : 0;
    return Math.min(offset + (one ? 0 : 1), choicesLength - 1);
  };
}

export const pluralRules: Record<AppLocale, PluralizationRule> = Object.fromEntries(SUPPORTED_LOCALES.map((l) => [l, rule(l)])) as Record<
  AppLocale,
  PluralizationRule
>;
