import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat, statfs } from 'node:fs/promises';
import path from 'node:path';

/**
 * The external programs renditions and conversions use (ffmpeg, ffprobe, pdftoppm, pdfinfo,
 * LibreOffice): found once, run without a shell (arguments are never parsed by one), with a
 * timeout, and stopped at once when their caller aborts (a canceled conversion).
 */

/**
 * A tool failed. `message` is fixed words a user may read; `detail` is what the tool itself said, for the server's
 * log only (issue #27): it may name the job's work directory, a server path.
 */
export class ToolFailure extends Error {
  override name = 'ToolFailure';

  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** The caller aborted the run (its signal): not a failure of the program or of its input. */
export class ToolAborted extends Error {
  override name = 'ToolAborted';
}

export async function executable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** `configured` when it is an executable file, else the first `name` on PATH; undefined when there is none. */
export async function locateTool(name: string, configured: string | undefined, searchPath = process.env.PATH ?? ''): Promise<string | undefined> {
  if (configured) return (await executable(configured)) ? configured : undefined;
  for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    if (await executable(candidate)) return candidate;
  }
  return undefined;
}

export interface ToolResult {
  /** null when the program was stopped (timeout, abort) or died of a signal. */
  code: number | null;
  timedOut: boolean;
  /** Stopped because `signal` was aborted (a canceled conversion). */
  aborted: boolean;
  stdout: string;
  stderr: string;
}

export interface ToolOptions {
  timeoutMs: number;
  cwd?: string;
  /** Aborting it kills the program's whole process group at once, as the timeout does. */
  signal?: AbortSignal;
  /** Every chunk of standard output as it arrives (ffmpeg's `-progress pipe:1`), beside the kept copy. */
  onStdout?: (chunk: string) => void;
  /** Characters of each output kept for the result (default 4,000: enough for messages and pdfinfo's answer). */
  outputLimit?: number;
}

const OUTPUT_LIMIT = 4000;

/**
 * Runs a program to completion. It gets a process group of its own, and the whole group is
 * killed at the timeout or when `signal` aborts: LibreOffice's `soffice` is a launcher whose
 * worker would outlive it. Output is kept up to `outputLimit` characters.
 */
export function runTool(file: string, args: string[], options: ToolOptions): Promise<ToolResult> {
  const limit = options.outputLimit ?? OUTPUT_LIMIT;
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      resolve({ code: null, timedOut: false, aborted: true, stdout: '', stderr: '' });
      return;
    }
    const child = spawn(file, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < limit) stdout += chunk;
      options.onStdout?.(chunk);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < limit) stderr += chunk;
    });
    let timedOut = false;
    let aborted = false;
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL'); // the group is gone already
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (err) => {
      done();
      reject(err);
    });
    child.on('close', (code) => {
      done();
      const stopped = timedOut || aborted;
      resolve({ code: stopped ? null : code, timedOut, aborted, stdout: stdout.trim(), stderr: stderr.trim() });
    });
  });
}

/** The first distinct lines of a program's complaint, short enough for a preview note. */
export function firstLines(text: string, max = 300): string {
  const distinct = [...new Set(text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean))];
  const lines = distinct.slice(0, 3).join('; ');
  return lines.length > max ? `${lines.slice(0, max - 1)}…` : lines;
}

export async function nonEmpty(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile() && s.size > 0,
    () => false,
  );
}

/** What a program (or libvips, under sharp) says when a write fails for want of room: ENOSPC, EDQUOT. */
const NO_ROOM = /no space left on device|disk quota exceeded/i;
/** Less free than this, and a failed write is put down to the disk even when the program does not say why. */
const NEARLY_FULL_BYTES = 1024 * 1024;

/**
 * Whether a program failed for want of disk space rather than because of its input (issue #37): by its own words, or,
 * since some say only that they could not write (pdftoppm, LibreOffice), by the file system of `dir` (where it wrote)
 * having next to no room left. Then an error with code ENOSPC, which the job worker treats as a full disk: the job
 * waits for space and runs again, where the file would otherwise have been called unreadable for good. The program's
 * words stay out of its message (they may name server paths, issue #27).
 */
export async function diskFullFailure(dir: string, said: string): Promise<NodeJS.ErrnoException | undefined> {
  let full = NO_ROOM.test(said);
  if (!full) {
    const fs = await statfs(dir).catch(() => undefined);
    full = fs !== undefined && fs.bavail * fs.bsize < NEARLY_FULL_BYTES;
  }
  if (!full) return undefined;
  return Object.assign(new Error('ENOSPC: no space left on device (a program could not write its output)'), { code: 'ENOSPC' });
}
