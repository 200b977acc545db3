/**
 * Characters no name people read may carry: C0 controls, DEL, C1 controls, and the bidirectional
 * embedding, override and isolate characters (U+202E makes "gpj.exe" display as "exe.jpg").
 * Names refuse them (src/http/validation.ts); uploaded file names have them removed
 * (src/domain/file-names.ts).
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this matches
export const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** The same, but tab, line feed and carriage return are allowed (descriptions of several lines). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this matches
export const UNSAFE_MULTILINE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
