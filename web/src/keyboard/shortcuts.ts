import { onBeforeUnmount, onMounted } from 'vue';

/**
 * Single-key shortcuts. One keydown listener on the window hands each key to the
 * page that registered it last (the library registers `/`, `u`, Delete and Escape;
 * the asset page ← → and `f`; the frame of every signed-in page `?`). They never fire while the user types
 * (text fields, selects, editable content), while a dialog is open, or with
 * Ctrl, Alt or Meta held (those are the browser's and the system's).
 */
export type ShortcutKey = '/' | 'u' | '?' | 'Delete' | 'Escape' | 'ArrowLeft' | 'ArrowRight' | 'f';
/** Returns false when it did nothing with the key (its default then happens). */
export type ShortcutHandler = (event: KeyboardEvent) => boolean | void;

/**
 * What the help dialog lists: every key handled here and by the asset grid. `action` is a key of
 * library.shortcuts.actions; a key with a name in library.shortcuts.keys is shown in the reader's language.
 */
export const SHORTCUT_HELP: { keys: string[]; action: string }[] = [
  { keys: ['/'], action: 'search' },
  { keys: ['u'], action: 'upload' },
  { keys: ['←', '→', '↑', '↓'], action: 'move' },
  { keys: ['Home', 'End'], action: 'firstLast' },
  { keys: ['Enter'], action: 'open' },
  { keys: ['Space'], action: 'select' },
  { keys: ['Shift', 'click'], action: 'range' },
  { keys: ['Delete'], action: 'delete' },
  { keys: ['Esc'], action: 'escape' },
  { keys: ['←', '→'], action: 'step' },
  { keys: ['f'], action: 'fullscreen' },
  { keys: ['doubleClick'], action: 'zoom' },
  { keys: ['?'], action: 'help' },
];

/** Input types whose keys are not text: keys pressed on them may still be shortcuts. */
const NOT_TEXT = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'image', 'color']);

/** Whether keys pressed on this element are typing (or drive the element itself, as in a select). */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof Element)) return false;
  if (target instanceof HTMLInputElement) return !NOT_TEXT.has(target.type);
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLElement && (target.isContentEditable || target.closest('[contenteditable=""], [contenteditable="true"]') !== null);
}

/** The shortcut a keydown stands for, or null when it is not one here and now. */
export function shortcutOf(event: KeyboardEvent): ShortcutKey | null {
  if (event.defaultPrevented || event.isComposing || event.ctrlKey || event.metaKey || event.altKey) return null;
  if (isTyping(event.target)) return null;
  // A modal dialog owns the keyboard (Escape closes it natively).
  if (document.querySelector('dialog[open]')) return null;
  switch (event.key) {
    case '/':
    case '?':
    case 'Escape':
      return event.key;
    case 'u':
    case 'f':
      return event.repeat ? null : event.key;
    case 'ArrowLeft':
    case 'ArrowRight':
      return event.shiftKey ? null : event.key;
    // Mac keyboards' delete key is Backspace.
    case 'Delete':
    case 'Backspace':
      return 'Delete';
    default:
      return null;
  }
}

const registered: Partial<Record<ShortcutKey, ShortcutHandler>>[] = [];

function dispatch(event: KeyboardEvent): void {
  const key = shortcutOf(event);
  if (!key) return;
  for (let i = registered.length - 1; i >= 0; i -= 1) {
    const handler = registered[i]![key];
    if (handler && handler(event) !== false) {
      event.preventDefault();
      return;
    }
  }
}

/** Registers handlers until the returned function is called. */
export function registerShortcuts(handlers: Partial<Record<ShortcutKey, ShortcutHandler>>): () => void {
  if (registered.length === 0) window.addEventListener('keydown', dispatch);
  registered.push(handlers);
  return () => {
    const i = registered.indexOf(handlers);
    if (i >= 0) registered.splice(i, 1);
    if (registered.length === 0) window.removeEventListener('keydown', dispatch);
  };
}

/** registerShortcuts for the lifetime of a component. */
export function useShortcuts(handlers: Partial<Record<ShortcutKey, ShortcutHandler>>): void {
  let unregister: (() => void) | undefined;
  onMounted(() => {
    unregister = registerShortcuts(handlers);
  });
  onBeforeUnmount(() => unregister?.());
}
