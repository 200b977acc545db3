import path from 'node:path';
import { PREVIEW_SIZE, UnreadableMedia } from './renditions.js';
import { NO_PREVIEW_WORDS, UNREADABLE_WORDS } from '../domain/unreadable.js';
import { diskFullFailure, executable, locateTool, nonEmpty, runTool } from './tools.js';

/** Rendering one page is quick; a PDF that takes longer is stopped (and the job retried, as for ffmpeg). */
const RENDER_TIMEOUT_MS = 60_000;
const INFO_TIMEOUT_MS = 30_000;

/** poppler-utils: `pdftoppm` renders pages, its sibling `pdfinfo` counts them. */
export interface Poppler {
  pdftoppm: string;
  /** undefined when pdftoppm has no `pdfinfo` beside it: page counts stay unknown. */
  pdfinfo: string | undefined;
}

/**
 * PDFTOPPM_PATH when set, else the first `pdftoppm` on PATH; undefined when there is none
 * (PDFs then get no preview and say 'unavailable', nothing fails).
 */
export async function locatePoppler(configured: string | undefined, searchPath?: string): Promise<Poppler | undefined> {
  const pdftoppm = await locateTool('pdftoppm', configured, searchPath);
  if (!pdftoppm) return undefined;
  const pdfinfo = path.join(path.dirname(pdftoppm), 'pdfinfo');
  return { pdftoppm, pdfinfo: (await executable(pdfinfo)) ? pdfinfo : undefined };
}

/**
 * The reason poppler gave, in fixed words for the preview note (its own go to the log): a password is the one case
 * users can act on, and the file is fine; anything else is a damaged PDF (issue #27).
 */
function unreadable(stderr: string): UnreadableMedia {
  if (/password/i.test(stderr)) return new UnreadableMedia(NO_PREVIEW_WORDS.pdfEncrypted, { detail: stderr });
  return new UnreadableMedia(UNREADABLE_WORDS.pdf, { damaged: true, detail: stderr });
}

/** Pages of the PDF according to pdfinfo; null when it cannot tell (no pdfinfo, encrypted, broken). */
export async function pdfPageCount(poppler: Poppler, input: string): Promise<number | null> {
  if (!poppler.pdfinfo) return null;
  const run = await runTool(poppler.pdfinfo, [input], { timeoutMs: INFO_TIMEOUT_MS });
  if (run.code !== 0) return null;
  const pages = /^Pages:\s+(\d+)\s*$/m.exec(run.stdout);
  const n = pages ? Number(pages[1]) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/**
 * Renders page 1 to `{outputPrefix}.png`, its longest edge PREVIEW_SIZE pixels (vector pages
 * are drawn at that size, not enlarged from a smaller bitmap), on white as printed.
 */
export async function renderFirstPage(poppler: Poppler, input: string, outputPrefix: string): Promise<string> {
  const run = await runTool(
    poppler.pdftoppm,
    ['-f', '1', '-l', '1', '-singlefile', '-png', '-scale-to', String(PREVIEW_SIZE), input, outputPrefix],
    { timeoutMs: RENDER_TIMEOUT_MS },
  );
  if (run.timedOut) throw new Error(`pdftoppm was stopped after ${RENDER_TIMEOUT_MS / 1000} s`);
  const output = `${outputPrefix}.png`;
  if (run.code !== 0 || !(await nonEmpty(output))) throw (await diskFullFailure(path.dirname(output), run.stderr)) ?? unreadable(run.stderr);
  return output;
}
