/** Area "drives": external drives: connect, browse, import, send to drive. English is the source of truth (web/src/i18n/README.md). */
export default {};
