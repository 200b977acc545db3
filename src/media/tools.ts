import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * The external programs renditions use (ffmpeg, pdftoppm, pdfinfo, LibreOffice): found once,
 * run without a shell (arguments are never parsed by one), with a timeout.
 */

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
  /** null when the program was stopped (timeout) or died of a signal. */
  code: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

const OUTPUT_LIMIT = 4000;

/**
 * Runs a program to completion. It gets a process group of its own, and the whole group is
 * killed at the timeout: LibreOffice's `soffice` is a launcher whose worker would outlive it.
 * Output is kept up to a few KB (for messages and pdfinfo's answer).
 */
export function runTool(file: string, args: string[], options: { timeoutMs: number; cwd?: string }): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < OUTPUT_LIMIT) stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < OUTPUT_LIMIT) stderr += chunk;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL'); // the group is gone already
      }
    }, options.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: timedOut ? null : code, timedOut, stdout: stdout.trim(), stderr: stderr.trim() });
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
