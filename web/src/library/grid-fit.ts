import { ref, watch } from 'vue';

/**
 * The library grid's "Fit" option (issue #27): tiles show the whole picture in its own proportions
 * (object-fit: contain) instead of a crop filling the tile. One choice per browser, kept in
 * localStorage as `dam.grid-fit` ("1" when on).
 */
const KEY = 'dam.grid-fit';

function stored(): boolean {
  try {
    return localStorage.getItem(KEY) === '1';
  } catch {
    return false;
  }
}

export const gridFit = ref(stored());

watch(gridFit, (on) => {
  try {
    if (on) localStorage.setItem(KEY, '1');
    else localStorage.removeItem(KEY);
  } catch {
    // storage refused (private mode): the choice lasts for this page only
  }
});

export function toggleGridFit(): void {
  gridFit.value = !gridFit.value;
}
