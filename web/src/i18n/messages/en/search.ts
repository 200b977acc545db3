/** Area "search": the search box, filters and facets. English is the source of truth (web/src/i18n/README.md). */
export default {};
