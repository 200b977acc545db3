/** Why an entry of a stored ZIP is listed but not extracted (zip/zip-reader.ts); the API lists the same words (contracts/zip.ts). */
export const ENTRY_PROBLEMS = ['unsafe_name', 'symlink', 'special_file', 'encrypted', 'unsupported_compression'] as const;
export type EntryProblem = (typeof ENTRY_PROBLEMS)[number];
