import { ref } from 'vue';

/**
 * The colour theme: the system's (prefers-color-scheme, the default), or light or dark
 * as the user chose, remembered in localStorage. The stylesheet does the rest: its colours
 * are light-dark() pairs, and `data-theme` on <html> fixes the color-scheme they follow.
 */
export type ThemeChoice = 'system' | 'light' | 'dark';

const THEME_KEY = 'dam.theme';
/** The choices, in the order the account menu offers them (their names: `shell.themes.<value>` in the catalogues). */
export const THEMES: { value: ThemeChoice }[] = [{ value: 'system' }, { value: 'light' }, { value: 'dark' }];

function saved(): ThemeChoice {
  try {
    const value = localStorage.getItem(THEME_KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

export const theme = ref<ThemeChoice>(saved());

function apply(choice: ThemeChoice): void {
  const root = document.documentElement;
  if (choice === 'system') delete root.dataset.theme;
  else root.dataset.theme = choice;
}

export function setTheme(choice: ThemeChoice): void {
  theme.value = choice;
  try {
    if (choice === 'system') localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, choice);
  } catch {
    // storage full or blocked: the choice holds for this page only
  }
  apply(choice);
}

/** Called once at start-up, before the app mounts (no inline script may do it earlier: the CSP forbids one). */
export function applySavedTheme(): void {
  apply(theme.value);
}
