import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { freePort, startServer, stopChild } from '../../scripts/bench-process.mjs';
import { call, ENTRY, expectStatus, ROOT } from '../cluster/cluster.js';
import { tempDir } from '../helpers/databases.js';

/**
 * The built server (dist/server.js) in a process of its own for `npm run test:security` (issue #28),
 * and what the suite measures of it from outside: its open sockets and CPU seconds (/proc, Linux)
 * and the bytes its data dir takes on disk. Nothing runs in the test's process, so what the server
 * spends on a hostile request is what the numbers show.
 */

export interface SecurityServer {
  base: string;
  port: number;
  pid: number;
  dataDir: string;
  logs: () => string;
  stop: () => Promise<void>;
}

/** Starts the server on SQLite and the local store in a fresh data dir, with `env` on top (small limits). */
export async function startSecurityServer(env: Record<string, string>): Promise<SecurityServer> {
  if (process.platform !== 'linux') throw new Error('npm run test:security reads /proc: it runs on Linux only');
  const children = new Set<ChildProcess>();
  const port = await freePort();
  const dataDir = tempDir('dam-security-');
  const { child, base, logs } = await startServer({ entry: ENTRY, cwd: ROOT, dataDir, port, env }, children);
  if (child.pid === undefined) throw new Error('the server process has no pid');
  return { base, port, pid: child.pid, dataDir, logs, stop: () => stopChild(child, children) };
}

/** The server's open sockets: its file descriptors that link to `socket:[inode]` (listening, clients, anything else). */
export function openSockets(pid: number): number {
  const dir = `/proc/${pid}/fd`;
  let sockets = 0;
  for (const fd of readdirSync(dir)) {
    try {
      if (readlinkSync(path.join(dir, fd)).startsWith('socket:')) sockets += 1;
    } catch {
      // closed between the listing and the readlink
    }
  }
  return sockets;
}

let clockTicks: number | undefined;

/** CPU seconds the process has spent so far, user and system (fields 14 and 15 of /proc/<pid>/stat). */
export function cpuSeconds(pid: number): number {
  clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

/**
 * SQLite's own files (the database, its WAL and shared memory) are left out of the counts: the WAL
 * grows to about 4 MB with any writes and is then reused, whatever a request sent.
 */
const DATABASE_FILE = /^dam\.sqlite/;

/** Bytes the tree under `dir` takes on disk (allocated blocks, as `du` counts them), SQLite's files aside. */
export function diskBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    if (DATABASE_FILE.test(name)) continue;
    const file = path.join(dir, name);
    let stat;
    try {
      stat = lstatSync(file);
    } catch {
      continue; // removed while walking (a temporary file)
    }
    total += stat.blocks * 512;
    if (stat.isDirectory()) total += diskBytes(file);
  }
  return total;
}

/** How many files under `dir` take at least `min` bytes on disk, and the largest five: what a failed bound names. */
export function largeFiles(dir: string, min = 64 * 1024): string {
  const found: [string, number][] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      if (DATABASE_FILE.test(name)) continue;
      const file = path.join(at, name);
      let stat;
      try {
        stat = lstatSync(file);
      } catch {
        continue;
      }
      if (stat.isDirectory()) walk(file);
      else if (stat.blocks * 512 >= min) found.push([path.relative(dir, file), stat.blocks * 512]);
    }
  };
  walk(dir);
  const largest = found.sort((a, b) => b[1] - a[1]).slice(0, 5).map(([file, bytes]) => `${file} ${bytes}`);
  return `${found.length} files of ${min} bytes or more, the largest: ${largest.join('; ')}`;
}

/** Polls `probe` every 100 ms until it is true; answers whether it became true within `timeoutMs`. */
export async function eventually(probe: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (probe()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface Owner {
  token: string;
  workspaceId: number;
}

/** Registers an account (its personal workspace is the one the suite uses). */
export async function registerOwner(base: string, email: string): Promise<Owner> {
  const reply = expectStatus(await call(base, 'POST', '/auth/register', { json: { email, password: 'a long security password', name: 'Owner' } }), 201, 'register');
  const answer = reply.json<{ token: string; workspaces: { id: number }[] }>();
  return { token: answer.token, workspaceId: answer.workspaces[0]!.id };
}
