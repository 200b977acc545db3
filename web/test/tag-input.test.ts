import { flushPromises, mount } from '@vue/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SuggestFn } from '../src/api/search';
import TagInput from '../src/components/TagInput.vue';

/** Completions as GET /search-engine/suggestions answers them: tags first, then names. */
const ANSWER = ['red', 'Red-Carpet', 'redwood', 'red-landscape.png'];

function mountTags(tags: string[] = ['launch'], suggest: SuggestFn = vi.fn(async () => ANSWER)) {
  const wrapper = mount(TagInput, { props: { modelValue: tags, id: 'tags', workspaceId: 7, suggest }, attachTo: document.body });
  return { wrapper, input: wrapper.get('input'), suggest };
}

type Mounted = ReturnType<typeof mountTags>;

/** Types into the field and lets the debounced request answer. */
async function type(m: Mounted, text: string): Promise<void> {
  await m.input.trigger('focus');
  await m.input.setValue(text);
  vi.advanceTimersByTime(200);
  await flushPromises();
}

const key = (m: Mounted, k: string) => m.input.trigger('keydown', { key: k });
const options = (m: Mounted) => m.wrapper.findAll('[role="option"]');
const highlighted = (m: Mounted) => m.wrapper.findAll('[role="option"][aria-selected="true"]').map((o) => o.text());
const emitted = (m: Mounted) => m.wrapper.emitted<[string[]]>('update:modelValue')?.map((e) => e[0]) ?? [];

describe('TagInput completions (keyboard)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    document.body.innerHTML = '';
  });

  it('asks for completions of what is typed, in the workspace, leaving out tags already there', async () => {
    const m = mountTags(['launch', 'RED']);
    await type(m, 're');
    expect(m.suggest).toHaveBeenCalledTimes(1);
    expect(m.suggest).toHaveBeenCalledWith('re', 7, expect.any(AbortSignal));
    expect(options(m).map((o) => o.text())).toEqual(['Red-Carpet', 'redwood', 'red-landscape.png']);
    expect(m.input.attributes('aria-expanded')).toBe('true');
    expect(highlighted(m)).toEqual([]);
  });

  it('moves the highlight with the arrow keys (wrapping) and Enter takes the highlighted one', async () => {
    const m = mountTags();
    await type(m, 're');
    await key(m, 'ArrowDown');
    expect(highlighted(m)).toEqual(['red']);
    expect(m.input.attributes('aria-activedescendant')).toBe('tags-option-0');
    await key(m, 'ArrowDown');
    await key(m, 'ArrowDown');
    expect(highlighted(m)).toEqual(['redwood']);
    await key(m, 'ArrowUp');
    expect(highlighted(m)).toEqual(['Red-Carpet']);
    await key(m, 'ArrowUp');
    await key(m, 'ArrowUp');
    expect(highlighted(m)).toEqual(['red-landscape.png']);
    await key(m, 'ArrowDown');
    await key(m, 'ArrowDown');
    expect(highlighted(m)).toEqual(['Red-Carpet']);

    await key(m, 'Enter');
    expect(emitted(m)).toEqual([['launch', 'Red-Carpet']]);
    expect((m.input.element as HTMLInputElement).value).toBe('');
    expect(m.input.attributes('aria-expanded')).toBe('false');
  });

  it('Enter without a highlight adds what was typed, not a suggestion', async () => {
    const m = mountTags();
    await type(m, 're');
    expect(options(m)).toHaveLength(4);
    await key(m, 'Enter');
    expect(emitted(m)).toEqual([['launch', 're']]);
  });

  it('Escape closes the list without adding anything and keeps the key from the page; typing opens it again', async () => {
    const m = mountTags();
    const escapes = vi.fn();
    const outside = (e: KeyboardEvent) => {
      if (e.key === 'Escape') escapes();
    };
    document.body.addEventListener('keydown', outside);
    await type(m, 're');
    await key(m, 'ArrowDown');
    await key(m, 'Escape');
    expect(m.input.attributes('aria-expanded')).toBe('false');
    expect(escapes).not.toHaveBeenCalled();
    // The highlight is gone with the list: Enter now takes the typed text.
    await key(m, 'Enter');
    expect(emitted(m)).toEqual([['launch', 're']]);

    await type(m, 'red');
    expect(m.input.attributes('aria-expanded')).toBe('true');
    // A second Escape (no list) is the page's again.
    await key(m, 'Escape');
    await key(m, 'Escape');
    expect(escapes).toHaveBeenCalledTimes(1);
    document.body.removeEventListener('keydown', outside);
  });

  it('leaving the field adds nothing: the half-typed tag stays, with a note', async () => {
    const m = mountTags();
    await type(m, 'hal');
    await key(m, 'ArrowDown');
    await m.input.trigger('blur');
    expect(emitted(m)).toEqual([]);
    expect((m.input.element as HTMLInputElement).value).toBe('hal');
    expect(m.wrapper.text()).toContain('“hal” is not added yet');
    expect(m.input.attributes('aria-expanded')).toBe('false');
  });

  it('a click on a suggestion adds it', async () => {
    const m = mountTags();
    await type(m, 're');
    await options(m)[2]!.trigger('mousedown');
    expect(emitted(m)).toEqual([['launch', 'redwood']]);
  });

  it('ignores an answer for a prefix no longer typed, and works without completions', async () => {
    let answer: (value: string[]) => void = () => undefined;
    const slow = vi.fn(() => new Promise<string[]>((resolve) => (answer = resolve)));
    const m = mountTags([], slow);
    await type(m, 'r');
    await m.input.setValue('');
    answer(['red']);
    await flushPromises();
    expect(options(m)).toHaveLength(0);

    const failing = mountTags([], vi.fn(async () => Promise.reject(new Error('offline'))));
    await type(failing, 'blue');
    expect(options(failing)).toHaveLength(0);
    await key(failing, 'Enter');
    expect(emitted(failing)).toEqual([['blue']]);
  });
});
