/**
 * The web client's languages (issue #29) and how one is chosen: the user's stored choice (GET /auth/me `locale`)
 * wins; before sign-in, or without one, the browser's languages (navigator.languages) in order, the first we have;
 * English when none matches. The server's list is src/contracts/locales.ts: keep the two the same.
 */
export const SUPPORTED_LOCALES = ['en', 'de', 'fr', 'es'] as const;
export type AppLocale = (typeof SUPPORTED_LOCALES)[number];
export const DEFAULT_LOCALE: AppLocale = 'en';

/** Each language in its own words, for the language switch (never translated). */
export const LOCALE_NAMES: Record<AppLocale, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
};

export function isAppLocale(value: unknown): value is AppLocale {
  return typeof value === 'string' && (SUPPORTED_LOCALES as readonly string[]).includes(value);
}

/** The first of the browser's languages we have ("de-AT" → de), else English. */
export function negotiateLocale(preferred: readonly string[]): AppLocale {
  for (const tag of preferred) {
    let language: string;
    try {
      language = new Intl.Locale(tag).language.toLowerCase();
    } catch {
      continue;
    }
    if (isAppLocale(language)) return language;
  }
  return DEFAULT_LOCALE;
}

export function browserLocale(): AppLocale {
  if (typeof navigator === 'undefined') return DEFAULT_LOCALE;
  return negotiateLocale(navigator.languages?.length ? navigator.languages : [navigator.language]);
}
