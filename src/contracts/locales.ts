import { Type, type Static } from 'typebox';

/** Issue #29: the languages of the web client (web/src/i18n/). English is the source; server messages stay English. */
export const SUPPORTED_LOCALES = ['en', 'de', 'fr', 'es'] as const;

export const Locale = Type.Union([Type.Literal('en'), Type.Literal('de'), Type.Literal('fr'), Type.Literal('es')], {
  description: 'A language of the web client: en, de, fr or es',
  examples: ['de'],
});
export type Locale = Static<typeof Locale>;
// The list and the schema name the same languages.
const sameLanguages: readonly Locale[] = SUPPORTED_LOCALES;
void sameLanguages;

/** The account's chosen language, or null: none chosen (the web client follows the browser). */
export const AccountLocale = Type.Union([Locale, Type.Null()], {
  description: "The language the user chose for the web client (en, de, fr, es), or null when none is chosen (the client follows the browser's languages)",
});
