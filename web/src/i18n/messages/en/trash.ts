/** Area "trash": the trash: deleted items, restore, empty trash. English is the source of truth (web/src/i18n/README.md). */
export default {};
