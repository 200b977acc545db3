import { afterEach } from 'vitest';
import { setLocale } from '../src/i18n';
import { installI18nForMounts } from './mount';

// Every mount gets vue-i18n, in English (web/test/mount.ts).
installI18nForMounts();
setLocale('en');
afterEach(() => setLocale('en'));
