import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createDam, type Dam } from '../../sdk/src/index.js';

/** What `dam login` stores: where the instance is and the bearer token of the session. */
export interface Session {
  url: string;
  token: string;
  email: string;
}

/** DAM_CONFIG_DIR, else $XDG_CONFIG_HOME/dam, else ~/.config/dam (the XDG default). */
export function configDir(): string {
  if (process.env.DAM_CONFIG_DIR) return path.resolve(process.env.DAM_CONFIG_DIR);
  const xdg = process.env.XDG_CONFIG_HOME;
  // The XDG spec ignores a relative XDG_CONFIG_HOME.
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.config');
  return path.join(base, 'dam');
}

const sessionFile = () => path.join(configDir(), 'session.json');

/** The directory is 0700 and the file 0600: the token is a credential (mode set again on an existing file). */
export async function saveSession(session: Session): Promise<string> {
  const dir = configDir();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = sessionFile();
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
  return file;
}

export async function loadSession(): Promise<Session | undefined> {
  const text = await readFile(sessionFile(), 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (text === undefined) return undefined;
  const parsed = JSON.parse(text) as Partial<Session>;
  if (typeof parsed.url !== 'string' || typeof parsed.token !== 'string') throw new CliError(`${sessionFile()} is not a dam session; run dam login again`);
  return { url: parsed.url, token: parsed.token, email: typeof parsed.email === 'string' ? parsed.email : '' };
}

export async function removeSession(): Promise<void> {
  await rm(sessionFile(), { force: true });
}

/** A failure to report as one line (no stack) with exit code 1. */
export class CliError extends Error {
  override name = 'CliError';
}

/** The SDK client of the stored session; not logged in is a CliError. */
export async function requireDam(): Promise<{ dam: Dam; session: Session }> {
  const session = await loadSession();
  if (!session) throw new CliError('Not logged in: run dam login --url URL first');
  return { dam: createDam({ baseUrl: session.url, token: session.token }), session };
}
