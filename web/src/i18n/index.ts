import { createI18n } from 'vue-i18n';
import de from './messages/de';
import en, { type Messages } from './messages/en';
import es from './messages/es';
import fr from './messages/fr';
import { browserLocale, DEFAULT_LOCALE, isAppLocale, type AppLocale } from './locales';
import { pluralRules } from './plural';

export { LOCALE_NAMES, SUPPORTED_LOCALES, isAppLocale, negotiateLocale, type AppLocale } from './locales';

/**
 * The web client's i18n (issue #29; web/src/i18n/README.md): vue-i18n in composition mode. In a component:
 * `const { t } = useI18n()` and `t('area.key', { name })`, `t('area.files', { n }, n)` (plural); outside one
 * (stores, util, composables): `translate(...)` from here, called when the text is needed (not at import time)
 * so it follows a change of language.
 */
export const i18n = createI18n<[Messages], AppLocale, false>({
  legacy: false,
  locale: DEFAULT_LOCALE,
  fallbackLocale: DEFAULT_LOCALE,
  messages: { en, de, fr, es },
  pluralRules,
  // A missing key is a bug the catalogue test catches; no console noise for it in production.
  missingWarn: import.meta.env.DEV,
  fallbackWarn: false,
});

/** The language shown now (reactive: a template or computed that reads it follows a change). */
export function currentLocale(): AppLocale {
  return i18n.global.locale.value;
}

/**
 * The locale dates and numbers are written in: the browser's own variant of the language shown (en-GB writes
 * "14 Jul 2023", de-CH "1’234"), else the language shown. Reactive like currentLocale().
 */
export function formatLocale(): string {
  const shown = currentLocale();
  if (typeof navigator === 'undefined') return shown;
  for (const tag of navigator.languages?.length ? navigator.languages : [navigator.language]) {
    try {
      if (new Intl.Locale(tag).language.toLowerCase() === shown) return Intl.getCanonicalLocales(tag)[0] ?? shown;
    } catch {
      // not a language tag: the next one
    }
  }
  return shown;
}

/** Shows the client in `locale` and marks the page with it (<html lang>, for screen readers and hyphenation). */
export function setLocale(locale: AppLocale): void {
  i18n.global.locale.value = locale;
  if (typeof document !== 'undefined') document.documentElement.lang = locale;
}

/** The language before sign-in or without a stored choice: the browser's. */
export function applyBrowserLocale(): void {
  setLocale(browserLocale());
}

/**
 * The language for a signed-in user: their stored choice (GET /auth/me `locale`), else the browser's. Called when the
 * session's user is known (startup with a stored session, after each GET /auth/me).
 */
export function applyUserLocale(stored: string | null | undefined): void {
  if (isAppLocale(stored)) setLocale(stored);
  else applyBrowserLocale();
}

/** The global `t`, for code outside components (stores, composables, util). */
export const translate: typeof i18n.global.t = ((...args: Parameters<typeof i18n.global.t>) => i18n.global.t(...args)) as typeof i18n.global.t;
