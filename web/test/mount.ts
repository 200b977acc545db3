import { config } from '@vue/test-utils';
import { i18n, setLocale, type AppLocale } from '../src/i18n';

/**
 * The web tests' i18n (issue #29): components call useI18n(), so every mount needs the plugin. web/test/setup.ts
 * installs it for every mount (English, the language the tests read); `useLocale` switches for a test that checks
 * another language (reset to English after each test by the setup). A mount with its own `global.plugins` adds
 * `...i18nPlugins`.
 */
export const i18nPlugins = [i18n];

export function installI18nForMounts(): void {
  if (!config.global.plugins.includes(i18n)) config.global.plugins.push(i18n);
}

export function useLocale(locale: AppLocale): void {
  setLocale(locale);
}
