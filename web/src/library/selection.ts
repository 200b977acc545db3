/**
 * The grid's selection rules. A click toggles one asset and makes it the anchor;
 * a Shift-click gives every asset from the anchor to the clicked one (in grid
 * order, both included) the clicked one's new state, as file managers do, and
 * moves the anchor there. Without an anchor on the page, Shift-click is a click.
 */

/** The ids from `anchor` to `target` in grid order, both included; just the target when the anchor is not in `order`. */
export function rangeBetween<T>(order: readonly T[], anchor: T | null, target: T): T[] {
  const to = order.indexOf(target);
  const from = anchor === null ? -1 : order.indexOf(anchor);
  if (to < 0) return [];
  if (from < 0) return [target];
  return order.slice(Math.min(from, to), Math.max(from, to) + 1);
}

/** Asset ids (numbers) in the library; a drive's item ids (strings) on the Drives page. */
export class GridSelection<T = number> {
  readonly ids: Set<T>;
  private anchor: T | null = null;

  /** `ids` may be a reactive Set: only its own methods are called. */
  constructor(ids: Set<T>) {
    this.ids = ids;
  }

  click(order: readonly T[], id: T, shift: boolean): void {
    const select = !this.ids.has(id);
    const range = shift ? rangeBetween(order, this.anchor, id) : [id];
    for (const each of range) {
      if (select) this.ids.add(each);
      else this.ids.delete(each);
    }
    this.anchor = id;
  }

  clear(): void {
    this.ids.clear();
    this.anchor = null;
  }
}
