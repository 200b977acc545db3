import { defineAsyncComponent } from 'vue';

/**
 * The library's timeline and map (issue #27), loaded when first shown: the library page's own chunk carries neither,
 * and Leaflet with its clustering plugin and styles (about 190 kB) comes only with the map.
 */
export const LibraryTimeline = defineAsyncComponent(() => import('../components/LibraryTimeline.vue'));
export const LibraryMap = defineAsyncComponent(() => import('../components/LibraryMap.vue'));
