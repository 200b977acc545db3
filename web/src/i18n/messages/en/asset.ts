/** Area "asset": the asset page: viewer, preview, metadata form, embedded metadata, versions. English is the source of truth (web/src/i18n/README.md). */
export default {};
