import { mount, RouterLinkStub } from '@vue/test-utils';
import { describe, expect, it } from 'vitest';
import type { SearchDocument } from '../src/api/types';
import AssetGrid from '../src/components/AssetGrid.vue';
import { GridSelection, rangeBetween } from '../src/library/selection';
import { searchDoc } from './api-fixtures';

const ORDER = [11, 12, 13, 14, 15, 16];

describe('grid selection', () => {
  it('a range runs from the anchor to the clicked tile, either way, both included', () => {
    expect(rangeBetween(ORDER, 12, 15)).toEqual([12, 13, 14, 15]);
    expect(rangeBetween(ORDER, 15, 12)).toEqual([12, 13, 14, 15]);
    expect(rangeBetween(ORDER, 13, 13)).toEqual([13]);
    // No anchor, or one that is not on the page: just the tile.
    expect(rangeBetween(ORDER, null, 14)).toEqual([14]);
    expect(rangeBetween(ORDER, 99, 14)).toEqual([14]);
  });

  it('click toggles one; Shift-click gives the range the clicked tile’s new state', () => {
    const selection = new GridSelection(new Set());
    selection.click(ORDER, 12, false);
    selection.click(ORDER, 15, true);
    expect([...selection.ids].sort()).toEqual([12, 13, 14, 15]);
    // The anchor moved to 15: Shift-click on 16 adds 16 only.
    selection.click(ORDER, 16, true);
    expect([...selection.ids].sort()).toEqual([12, 13, 14, 15, 16]);
    // Shift-click on a selected tile deselects from the anchor to it.
    selection.click(ORDER, 14, true);
    expect([...selection.ids].sort()).toEqual([12, 13]);
    selection.click(ORDER, 12, false);
    expect([...selection.ids]).toEqual([13]);
    selection.clear();
    expect(selection.ids.size).toBe(0);
    // After clear there is no anchor: Shift-click selects one.
    selection.click(ORDER, 15, true);
    expect([...selection.ids]).toEqual([15]);
  });

  it('the grid reports Shift on a checkbox click and a Shift-click on a tile (which then does not open it)', async () => {
    const docs: SearchDocument[] = ORDER.map((id) => searchDoc({ id: String(id), display_file_name: `a${id}.png`, file_type: 'image', modified_at: 1 }));
    const wrapper = mount(AssetGrid, {
      props: { docs, workspaceId: 1, selectable: true, selected: new Set<number>() },
      global: { stubs: { RouterLink: RouterLinkStub } },
    });
    const boxes = wrapper.findAll('input[type=checkbox]');
    await boxes[1]!.trigger('click');
    await boxes[4]!.trigger('click', { shiftKey: true });
    const link = wrapper.findAll('a')[2]!;
    const plain = new MouseEvent('click', { bubbles: true, cancelable: true });
    link.element.dispatchEvent(plain);
    const shifted = new MouseEvent('click', { bubbles: true, cancelable: true, shiftKey: true });
    link.element.dispatchEvent(shifted);
    expect(wrapper.emitted('select')).toEqual([
      [12, false],
      [15, true],
      [13, true],
    ]);
    expect(shifted.defaultPrevented).toBe(true);
  });
});
