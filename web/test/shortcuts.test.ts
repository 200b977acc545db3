import { afterEach, describe, expect, it, vi } from 'vitest';
import { isTyping, registerShortcuts } from '../src/keyboard/shortcuts';

function press(target: EventTarget, key: string, init: KeyboardEventInit = {}): KeyboardEvent {
  const event = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init });
  target.dispatchEvent(event);
  return event;
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  document.body.appendChild(el);
  return el;
}

describe('keyboard shortcuts', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    cleanups.splice(0).forEach((c) => c());
    document.body.innerHTML = '';
  });
  const register = (handlers: Parameters<typeof registerShortcuts>[0]) => cleanups.push(registerShortcuts(handlers));

  it('fire on the page and take the key from the browser', () => {
    const search = vi.fn();
    register({ '/': search });
    const event = press(document.body, '/');
    expect(search).toHaveBeenCalledTimes(1);
    expect(event.defaultPrevented).toBe(true);
  });

  it('never fire while typing: text fields, text areas, selects, editable content', () => {
    const upload = vi.fn();
    const help = vi.fn();
    register({ u: upload, '?': help });
    for (const type of ['text', 'search', 'email', 'password', 'number']) {
      const input = element('input', { type });
      const event = press(input, 'u');
      expect(event.defaultPrevented).toBe(false);
      press(input, '?', { shiftKey: true });
    }
    press(element('textarea'), 'u');
    press(element('select'), 'u');
    const editable = element('div', { contenteditable: 'true' });
    const inner = document.createElement('span');
    editable.appendChild(inner);
    press(inner, 'u');
    expect(upload).not.toHaveBeenCalled();
    expect(help).not.toHaveBeenCalled();
    expect(isTyping(element('input'))).toBe(true);
  });

  it('fire on controls that take no text (a tile checkbox, a button)', () => {
    const remove = vi.fn();
    register({ Delete: remove });
    press(element('input', { type: 'checkbox' }), 'Delete');
    press(element('button'), 'Delete');
    expect(remove).toHaveBeenCalledTimes(2);
  });

  it('leave Ctrl, Alt and Meta combinations, and keys typed in a dialog, alone', () => {
    const upload = vi.fn();
    register({ u: upload });
    press(document.body, 'u', { ctrlKey: true });
    press(document.body, 'u', { metaKey: true });
    press(document.body, 'u', { altKey: true });
    const dialog = element('dialog', { open: '' });
    press(dialog, 'u');
    press(document.body, 'u');
    expect(upload).not.toHaveBeenCalled();
    dialog.remove();
    press(document.body, 'u');
    expect(upload).toHaveBeenCalledTimes(1);
  });

  it('? works with Shift (it is Shift+/ on most keyboards); Backspace counts as Delete', () => {
    const help = vi.fn();
    const remove = vi.fn();
    register({ '?': help, Delete: remove });
    press(document.body, '?', { shiftKey: true });
    press(document.body, 'Backspace');
    expect(help).toHaveBeenCalledTimes(1);
    expect(remove).toHaveBeenCalledTimes(1);
  });

  it('go to the latest page that handles the key; a handler answering false passes it on and keeps the default', () => {
    const outer = vi.fn();
    const inner = vi.fn(() => false);
    register({ Escape: outer });
    register({ Escape: inner });
    const passed = press(document.body, 'Escape');
    expect(inner).toHaveBeenCalledTimes(1);
    expect(outer).toHaveBeenCalledTimes(1);

    const last = vi.fn(() => false);
    cleanups.splice(0).forEach((c) => c());
    register({ Escape: last });
    const unhandled = press(document.body, 'Escape');
    expect(unhandled.defaultPrevented).toBe(false);
    expect(passed.defaultPrevented).toBe(true);
  });

  it('the asset page\'s keys: ← and → (not with Shift, which selects text), f once per press', () => {
    const prev = vi.fn();
    const next = vi.fn();
    const full = vi.fn();
    register({ ArrowLeft: prev, ArrowRight: next, f: full });
    expect(press(document.body, 'ArrowRight').defaultPrevented).toBe(true);
    press(document.body, 'ArrowLeft');
    press(document.body, 'ArrowLeft', { shiftKey: true });
    press(element('input', { type: 'text' }), 'ArrowRight');
    press(document.body, 'f');
    press(document.body, 'f', { repeat: true });
    press(document.body, 'f', { ctrlKey: true });
    expect([prev.mock.calls.length, next.mock.calls.length, full.mock.calls.length]).toEqual([1, 1, 1]);
  });

  it('stop when unregistered', () => {
    const search = vi.fn();
    const unregister = registerShortcuts({ '/': search });
    unregister();
    press(document.body, '/');
    expect(search).not.toHaveBeenCalled();
  });
});
