import { mount } from '@vue/test-utils';
import { defineComponent, h, nextTick } from 'vue';
import { useI18n } from 'vue-i18n';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/http';
import { currentLocale, i18n, negotiateLocale, setLocale } from '../src/i18n';
import { errorMessage } from '../src/i18n/errors';
import { formatBytes, formatDate, formatDaysLeft, formatRelative } from '../src/util/format';

/** Issue #29: the language chosen, plurals, Intl formatting and error codes in the chosen language. */

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const t = i18n.global.t;

describe('the client in several languages', () => {
  it('follows the first of the browser languages it has, English otherwise', () => {
    expect(negotiateLocale(['de-AT', 'en'])).toBe('de');
    expect(negotiateLocale(['it-IT', 'fr-CA', 'de'])).toBe('fr');
    expect(negotiateLocale(['es-419'])).toBe('es');
    expect(negotiateLocale(['it', 'pt-BR'])).toBe('en');
    expect(negotiateLocale(['not a tag', 'de'])).toBe('de');
    expect(negotiateLocale([])).toBe('en');
  });

  it('marks the page with the language', () => {
    setLocale('fr');
    expect(document.documentElement.lang).toBe('fr');
    expect(currentLocale()).toBe('fr');
  });

  it('reads 0, 1 and n by each language’s plural rules (French: 0 and 1 are singular)', () => {
    const key = 'account.sessions.othersSignedOut';
    setLocale('en');
    expect([0, 1, 2].map((n) => t(key, { n }, n))).toEqual(['No other session was signed out', '1 other session was signed out', '2 other sessions were signed out']);
    setLocale('de');
    expect(t(key, { n: 5 }, 5)).toBe('5 andere Sitzungen wurden abgemeldet');
    expect(t(key, { n: 1 }, 1)).toBe('1 andere Sitzung wurde abgemeldet');
    setLocale('fr');
    expect(t(key, { n: 1 }, 1)).toBe('1 autre session a été déconnectée');
    expect(t(key, { n: 2 }, 2)).toBe('2 autres sessions ont été déconnectées');
    // A two-form message in French: 0 takes the singular.
    expect(i18n.global.pluralRules.fr!(0, 2)).toBe(0);
    expect(i18n.global.pluralRules.en!(0, 2)).toBe(1);
  });

  it('formats dates, sizes and relative times in the chosen language', () => {
    const when = NOW / 1000 - 3 * 3600;
    setLocale('en');
    expect(formatBytes(2048)).toBe('2.0 kB');
    expect(formatRelative(when, NOW)).toBe('3 hours ago');
    expect(formatDaysLeft(NOW / 1000 + 30 * 86400, NOW)).toBe('in 30 days');
    setLocale('de');
    expect(formatBytes(5 * 1024 * 1024 + 100_000)).toBe('5,1 MB');
    expect(formatRelative(when, NOW)).toBe('vor 3 Stunden');
    expect(formatRelative(NOW / 1000 - 5, NOW)).toBe('gerade eben');
    expect(formatDate(NOW / 1000, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })).toBe('15. Januar 2025');
    setLocale('fr');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5,0\u202fMo'); // French puts a narrow no-break space before the unit
    expect(formatDaysLeft(NOW / 1000 + 86400, NOW)).toBe('dans 1 jour');
  });

  it('shows a known error code in the chosen language, and the server’s message for the rest and in English', () => {
    const known = new ApiError('E-mail or password is wrong', 401, 'INVALID_CREDENTIALS');
    const unknown = new ApiError('Folder "x" already exists', 409, 'CONFLICT');
    setLocale('de');
    expect(errorMessage(known)).toBe('E-Mail oder Passwort ist falsch.');
    expect(errorMessage(unknown)).toBe('Folder "x" already exists');
    expect(errorMessage(new ApiError('The server could not be reached.', 0))).toBe('Der Server ist nicht erreichbar. Prüfen Sie Ihre Verbindung.');
    setLocale('en');
    expect(errorMessage(known)).toBe('E-mail or password is wrong');
  });

  it('words the faults of the machine plainly in every language, English too (issue #37)', () => {
    const full = new ApiError('There is not enough free disk space to store this; nothing was stored. Try again later', 507, 'INSUFFICIENT_STORAGE');
    const database = new ApiError('The database is unavailable for the moment; try again shortly', 503, 'DATABASE_UNAVAILABLE');
    const store = new ApiError('Storing the file failed: connect ETIMEDOUT 10.0.0.7:9000', 503, 'STORAGE_UNAVAILABLE');
    setLocale('en');
    expect([full, database, store].map(errorMessage)).toEqual([
      'The disk is full — nothing was saved. Try again later.',
      'The database is restarting — try again in a few seconds.',
      'File storage is unavailable — try again shortly.',
    ]);
    setLocale('de');
    expect(errorMessage(full)).toBe('Der Speicher ist voll – nichts wurde gespeichert. Versuchen Sie es später erneut.');
    setLocale('fr');
    expect(errorMessage(database)).toBe('La base de données redémarre — réessayez dans quelques secondes.');
    setLocale('es');
    expect(errorMessage(store)).toBe('El almacenamiento de archivos no está disponible: inténtalo de nuevo en un momento.');
    setLocale('en');
  });

  it('re-renders a mounted component when the language changes', async () => {
    const Probe = defineComponent({ setup: () => { const { t: tt } = useI18n(); return () => h('p', tt('shell.signOut')); } });
    const wrapper = mount(Probe);
    expect(wrapper.text()).toBe('Sign out');
    setLocale('es');
    await nextTick();
    expect(wrapper.text()).toBe('Cerrar sesión');
  });
});
