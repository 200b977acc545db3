/** Area "convert": conversions: the convert dialog and its progress. English is the source of truth (web/src/i18n/README.md). */
export default {};
