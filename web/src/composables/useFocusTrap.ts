import { onBeforeUnmount, onMounted, type Ref } from 'vue';

/** What Tab can reach (before the checks of tabbable()). */
const CANDIDATES = 'a[href], area[href], button, input, select, textarea, iframe, audio[controls], video[controls], summary, [tabindex], [contenteditable="true"], [contenteditable=""]';

/** Whether Tab stops on the element: enabled, not taken out of the order, rendered. */
function tabbable(el: HTMLElement): boolean {
  if (el.tabIndex < 0 || el.matches(':disabled') || el.closest('[inert]')) return false;
  if (el instanceof HTMLInputElement && el.type === 'hidden') return false;
  return el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
}

/** A radio button Tab passes over: another of its group is checked (Tab stops on that one). */
function passedRadio(el: HTMLElement, root: HTMLElement): boolean {
  if (!(el instanceof HTMLInputElement) || el.type !== 'radio' || !el.name || el.checked) return false;
  return Array.from(root.querySelectorAll<HTMLInputElement>('input[type="radio"]')).some((r) => r.name === el.name && r.checked);
}

/** The elements Tab stops on inside `root`, in document order (positive tabindex is not used in this client). */
export function tabbables(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(CANDIDATES)).filter((el) => tabbable(el) && !passedRadio(el, root));
}

/**
 * Tab from the last control of `root` goes to its first, Shift+Tab from the first to its last.
 * A modal <dialog> already makes the page behind it inert, but the browser lets Tab leave it
 * for its own toolbar on the way round; this keeps the cycle inside the dialog.
 */
export function wrapTab(root: HTMLElement, event: KeyboardEvent): void {
  if (event.key !== 'Tab' || event.altKey || event.ctrlKey || event.metaKey) return;
  const stops = tabbables(root);
  const first = stops[0];
  const last = stops[stops.length - 1];
  if (!first || !last) {
    event.preventDefault();
    return;
  }
  const active = document.activeElement;
  const outside = !(active instanceof Node) || !root.contains(active) || active === root;
  if (event.shiftKey && (active === first || outside)) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || outside)) {
    event.preventDefault();
    first.focus();
  }
}

/** wrapTab on `root` for the lifetime of the component. */
export function useFocusTrap(root: Ref<HTMLElement | null>): void {
  const onKeydown = (event: KeyboardEvent) => {
    if (root.value) wrapTab(root.value, event);
  };
  onMounted(() => root.value?.addEventListener('keydown', onKeydown));
  onBeforeUnmount(() => root.value?.removeEventListener('keydown', onKeydown));
}
