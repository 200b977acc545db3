import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';

/** A local file to upload. */
export interface LocalFile {
  abs: string;
  /** As shown to the user and in the summary: relative to the argument's parent (photos/2024/a.jpg). */
  display: string;
  /** The folders to recreate above it, outermost first: the argument directory's name, then its sub-directories. */
  dirs: string[];
  size: number;
  mtimeMs: number;
}

export interface WalkOptions {
  recursive: boolean;
  include: string[];
  exclude: string[];
  /** Also hidden files and directories and operating-system debris (isSystemClutter); default: skipped. */
  includeHidden?: boolean;
}

export interface WalkResult {
  files: LocalFile[];
  /** Paths that could not be read (a broken link, no permission): reported as failures. */
  failed: { display: string; reason: string }[];
  /** Hidden files and directories and OS debris left out inside directories (not counted: the files under a skipped directory). */
  hidden: string[];
}

/** Files and directories that operating systems and editors leave behind: never anyone's assets. */
const CLUTTER_FILES = /^(thumbs\.db|ehthumbs(_vista)?\.db|desktop\.ini|icon\r|~\$.*|.*\.tmp|.*~)$/i;
const CLUTTER_DIRS = /^(__macosx|@eadir|\$recycle\.bin|system volume information|lost\+found)$/i;

/**
 * Whether a name inside a directory is hidden (a leading dot: .DS_Store, .git, ._photo.jpg, .Trash) or OS debris
 * (Thumbs.db, desktop.ini, *.tmp, editor backups, Office lock files ~$x.docx; __MACOSX, @eaDir, $RECYCLE.BIN), as
 * Immich's CLI skips them. A file named on the command line is uploaded whatever its name: the user asked for it.
 */
export function isSystemClutter(name: string, isDirectory: boolean): boolean {
  if (name.startsWith('.')) return true;
  return isDirectory ? CLUTTER_DIRS.test(name) : CLUTTER_FILES.test(name);
}

/**
 * The files named by the arguments: a file as itself; a directory as its files (and, with `recursive`, those of every
 * sub-directory), which keep their place under a folder named after the directory. Globs are matched against the
 * path inside the argument directory (a pattern without a slash against the base name, so `*.tmp` works at any
 * depth); an excluded directory is not entered. Symbolic links to files are followed, to directories not (a link
 * cycle would never end).
 */
export async function walk(args: string[], options: WalkOptions): Promise<WalkResult> {
  const globOptions = { basename: true, dot: true };
  const included = options.include.length > 0 ? picomatch(options.include, globOptions) : () => true;
  const excluded = options.exclude.length > 0 ? picomatch(options.exclude, globOptions) : () => false;
  const result: WalkResult = { files: [], failed: [], hidden: [] };
  const seen = new Set<string>();

  const addFile = (abs: string, display: string, dirs: string[], st: { size: number; mtimeMs: number }) => {
    if (seen.has(abs)) return;
    seen.add(abs);
    result.files.push({ abs, display, dirs, size: st.size, mtimeMs: Math.floor(st.mtimeMs) });
  };

  const visit = async (dirAbs: string, inside: string[], dirs: string[], display: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dirAbs, { withFileTypes: true });
    } catch (err) {
      result.failed.push({ display, reason: (err as Error).message });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const abs = path.join(dirAbs, entry.name);
      const rel = [...inside, entry.name].join('/');
      const shown = `${display}/${entry.name}`;
      if (!options.includeHidden && isSystemClutter(entry.name, entry.isDirectory())) {
        result.hidden.push(shown);
        continue;
      }
      if (entry.isDirectory()) {
        if (options.recursive && !excluded(rel)) await visit(abs, [...inside, entry.name], [...dirs, entry.name], shown);
        continue;
      }
      if (excluded(rel) || !included(rel)) continue;
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      try {
        const st = await stat(abs);
        if (st.isFile()) addFile(abs, shown, dirs, st);
      } catch (err) {
        result.failed.push({ display: shown, reason: (err as Error).message });
      }
    }
  };

  for (const arg of args) {
    const abs = path.resolve(arg);
    let st;
    try {
      st = await stat(abs);
    } catch (err) {
      result.failed.push({ display: arg, reason: (err as Error).message });
      continue;
    }
    const name = path.basename(abs);
    if (st.isDirectory()) await visit(abs, [], [name], name);
    else if (st.isFile()) addFile(abs, name, [], st);
    else result.failed.push({ display: arg, reason: 'not a regular file or directory' });
  }
  return result;
}
