/**
 * The name an uploaded file is kept under (file_name, and the default display_file_name).
 * A client's name is only a label: a path in it (`../../tmp/evil.png`, `C:\x\y.png`) must never
 * reach a record, a Content-Disposition or a file a user saves, and invisible characters must
 * not disguise it (U+202E makes "gpj.exe" display as "exe.jpg").
 */

import { UNSAFE_TEXT } from './unsafe-text.js';

const UNSAFE = new RegExp(UNSAFE_TEXT.source, 'g');

export const UNTITLED = 'untitled';

/**
 * The base name of an uploaded file's name: unsafe characters removed first (so none can hide a
 * separator), then everything up to the last `/` or `\` and a Windows drive prefix (`C:`) dropped,
 * surrounding blanks trimmed. Nothing left (or `.`, `..`) gives `fallback`.
 */
export function uploadedFileName(raw: string | undefined, fallback = UNTITLED): string {
  const clean = (raw ?? '').replace(UNSAFE, '');
  const base = clean
    .slice(Math.max(clean.lastIndexOf('/'), clean.lastIndexOf('\\')) + 1)
    .replace(/^[A-Za-z]:/, '')
    .trim();
  return base === '' || base === '.' || base === '..' ? fallback : base;
}
