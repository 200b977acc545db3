import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp } from 'node:fs/promises';
import path from 'node:path';

/** A fresh directory for one job's files under `<dataDir>/tmp/<purpose>/`; the caller removes it. */
export async function jobWorkDir(dataDir: string, purpose: string): Promise<string> {
  const parent = path.join(dataDir, 'tmp', purpose);
  await mkdir(parent, { recursive: true });
  return mkdtemp(path.join(parent, 'job-'));
}

/** A new file name under `<dataDir>/tmp/` (the directory made if need be), `<prefix>-<uuid>`; the caller removes the file. */
export async function tempFilePath(dataDir: string, prefix: string): Promise<string> {
  const dir = path.join(dataDir, 'tmp');
  await mkdir(dir, { recursive: true });
  return path.join(dir, `${prefix}-${randomUUID()}`);
}
