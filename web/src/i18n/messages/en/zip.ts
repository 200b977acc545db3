/** Area "zip": ZIP archives: download as ZIP, the entries panel, extract. English is the source of truth (web/src/i18n/README.md). */
export default {};
