/** Area "generate": image generation: the generate dialog and its limits. English is the source of truth (web/src/i18n/README.md). */
export default {};
