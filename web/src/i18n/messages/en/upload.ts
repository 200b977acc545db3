/** Area "upload": uploads: drop zone, upload panel, duplicates, unreadable files. English is the source of truth (web/src/i18n/README.md). */
export default {};
