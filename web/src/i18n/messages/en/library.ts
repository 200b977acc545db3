/** Area "library": the library page: toolbar, sidebar, folders, collections, grid, timeline, map, selection and bulk actions. English is the source of truth (web/src/i18n/README.md). */
export default {};
