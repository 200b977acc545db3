import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { NO_PREVIEW_WORDS } from '../domain/unreadable.js';
import { UnreadableMedia } from './renditions.js';
import { diskFullFailure, nonEmpty, runTool } from './tools.js';

/** Starting LibreOffice and laying out a long document takes a while; beyond this it is stopped (and retried). */
const CONVERT_TIMEOUT_MS = 180_000;

/**
 * LibreOffice headless (DAM_LIBREOFFICE_PATH) converts an office document to PDF, which is then
 * previewed as a PDF. `soffice --convert-to pdf --outdir DIR FILE` writes DIR/<FILE's base name>.pdf;
 * each job has a LibreOffice profile of its own (`-env:UserInstallation`), because two instances
 * sharing one profile wait for each other's lock or fail.
 */
export async function convertToPdf(soffice: string, input: string, workDir: string): Promise<string> {
  const outDir = path.join(workDir, 'pdf');
  const profile = path.join(workDir, 'libreoffice-profile');
  await mkdir(outDir, { recursive: true });
  await mkdir(profile, { recursive: true });
  const run = await runTool(
    soffice,
    [
      `-env:UserInstallation=${pathToFileURL(profile).href}`,
      '--headless',
      '--norestore',
      '--nolockcheck',
      '--convert-to',
      'pdf',
      '--outdir',
      outDir,
      input,
    ],
    { timeoutMs: CONVERT_TIMEOUT_MS, cwd: workDir },
  );
  if (run.timedOut) throw new Error(`LibreOffice was stopped after ${CONVERT_TIMEOUT_MS / 1000} s`);
  const output = path.join(outDir, `${path.parse(input).name}.pdf`);
  // soffice answers 0 even when it converted nothing ("Error: source file could not be loaded"): the file decides.
  if (await nonEmpty(output)) return output;
  // The PDF could not be written (issue #37): the job waits for space.
  const full = await diskFullFailure(outDir, `${run.stderr}\n${run.stdout}`);
  if (full) throw full;
  // Not marked unreadable (issue #27): LibreOffice also fails on documents that are fine but in a format it does not read.
  throw new UnreadableMedia(NO_PREVIEW_WORDS.office, { detail: [run.stderr, run.stdout].filter(Boolean).join('\n') });
}
