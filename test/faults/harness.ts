import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, startServer, stopChild } from '../../scripts/bench-process.mjs';
import { call, ENTRY, expectStatus, ROOT, sha256, type Reply } from '../cluster/cluster.js';
import { tempDir } from '../helpers/databases.js';

/**
 * `npm run test:faults` (issue #37): the built server (dist/server.js) in a process of its own, a steady load against
 * it, a fault injected and taken away, and what came of it: every answer by status and code, how long until requests
 * succeeded again, and whether every object uploaded before and during the fault is still whole (SHA-256 of what the
 * client sent against what the server gives back, and `npm run admin -- verify` on the server's database and store).
 * Each test file records one row per fault (recordFault); the global teardown (report.ts) prints them as a table.
 */

export const REPORT_FILE_ENV = 'DAM_FAULTS_REPORT';

export interface FaultRow {
  fault: string;
  /** Requests sent while the fault was in place. */
  requests: number;
  /** 5xx answers (and transport failures, as "transport") during the fault, by status and code. */
  errors: Record<string, number>;
  /** Seconds from taking the fault away to the first fully successful round of the load. */
  recoverSeconds: number;
  /** Objects whose bytes differ from what was uploaded, or are gone, plus what `admin verify` found. */
  objectsLost: number;
}

/** Appends a row for the final table (report.ts). */
export function recordFault(row: FaultRow): void {
  const file = process.env[REPORT_FILE_ENV];
  if (file) appendFileSync(file, `${JSON.stringify(row)}\n`);
}

export interface FaultServer {
  base: string;
  port: number;
  dataDir: string;
  env: Record<string, string>;
  child: ChildProcess;
  logs: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts the built server with `env` over the defaults (SQLite and the local store in `dataDir`, registration open).
 * `dataDir` defaults to a fresh temporary directory.
 */
export async function startFaultServer(env: Record<string, string> = {}, dataDir = tempDir('dam-faults-')): Promise<FaultServer> {
  const children = new Set<ChildProcess>();
  const port = await freePort();
  const { child, base, logs } = await startServer({ entry: ENTRY, cwd: ROOT, dataDir, port, env }, children);
  const fullEnv = { DAM_DATA_DIR: dataDir, DATABASE_URL: `sqlite:${path.join(dataDir, 'dam.sqlite')}`, DAM_STORAGE: 'local', ...env };
  return { base, port, dataDir, env: fullEnv, child, logs, stop: () => stopChild(child, children) };
}

export interface Account {
  token: string;
  workspaceId: number;
}

export async function register(base: string, email = `owner-${Date.now()}@faults.test`): Promise<Account> {
  const reg = expectStatus(await call(base, 'POST', '/auth/register', { json: { email, password: 'a long faults password', name: 'Owner' } }), 201, 'register');
  const body = reg.json<{ token: string; workspaces: { id: number }[] }>();
  return { token: body.token, workspaceId: body.workspaces[0]!.id };
}

export interface Uploaded {
  assetId: number;
  key: string;
  sha256: string;
}

/** Uploads `bytes` through POST /api/upload-asset; answers the asset, or the failed reply. */
export async function uploadFile(base: string, account: Account, bytes: Buffer, fileName: string): Promise<{ uploaded?: Uploaded; reply: Reply }> {
  const form = new FormData();
  form.set('workspaceId', String(account.workspaceId));
  form.set('file', new Blob([bytes], { type: 'application/octet-stream' }), fileName);
  const reply = await call(base, 'POST', '/api/upload-asset', { token: account.token, body: form });
  if (reply.status !== 201) return { reply };
  const asset = reply.json<{ data: { id: number } }>().data;
  // seed 2.3's key layout: the asset's object is {workspaceId}/digital_assets/{assetId}.
  return { uploaded: { assetId: asset.id, key: `${account.workspaceId}/digital_assets/${asset.id}`, sha256: sha256(bytes) }, reply };
}

/** Downloads every uploaded object and counts those that are gone or whose SHA-256 differs from what was sent. */
export async function countLost(base: string, account: Account, uploads: readonly Uploaded[]): Promise<{ lost: number; details: string[] }> {
  const details: string[] = [];
  for (const u of uploads) {
    const query = new URLSearchParams({ key: u.key, workspaceId: String(account.workspaceId) });
    const reply = await call(base, 'GET', `/storage/download?${query.toString()}`, { token: account.token });
    if (reply.status !== 200) details.push(`asset ${u.assetId}: download answered ${reply.status} ${reply.bytes.toString('utf8').slice(0, 200)}`);
    else if (sha256(reply.bytes) !== u.sha256) details.push(`asset ${u.assetId}: SHA-256 differs (${reply.bytes.length} bytes back)`);
  }
  return { lost: details.length, details };
}

/**
 * `npm run admin -- verify` (src/admin-cli.ts) against the server's database and store, as an operator runs it:
 * its exit code (0: every asset has its object and every object its asset, hashes equal) and what it printed.
 */
export function adminVerify(env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const clean = { ...process.env };
    for (const k of Object.keys(clean)) if (k.startsWith('DAM_') || k === 'DATABASE_URL') delete clean[k];
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'admin.mjs'), 'verify'], { cwd: ROOT, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? -1, output }));
  });
}

/** Tally of answers during a fault: by "status code" ("503 DATABASE_UNAVAILABLE"), transport failures as "transport". */
export class Tally {
  requests = 0;
  readonly errors: Record<string, number> = {};
  readonly statuses: Record<string, number> = {};

  add(reply: Reply | Error): void {
    this.requests += 1;
    if (reply instanceof Error) {
      this.errors.transport = (this.errors.transport ?? 0) + 1;
      return;
    }
    let code = '';
    try {
      code = reply.json<{ code?: string }>().code ?? '';
    } catch {
      code = /<Code>([^<]+)<\/Code>/.exec(reply.bytes.toString('utf8'))?.[1] ?? '';
    }
    const key = `${reply.status}${code ? ` ${code}` : ''}`;
    this.statuses[key] = (this.statuses[key] ?? 0) + 1;
    if (reply.status >= 500) this.errors[key] = (this.errors[key] ?? 0) + 1;
  }

  /** Answers of 500 with no code: the seed's unexpected failure, which no fault may cause. */
  get unexpected(): number {
    return this.statuses['500'] ?? 0;
  }
}

/** Calls `probe` every `everyMs` until it returns true; answers the seconds it took, or throws after `timeoutMs`. */
export async function secondsUntil(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000, everyMs = 200): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await probe().catch(() => false)) return Math.round((performance.now() - started) / 100) / 10;
    if (performance.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Lines of the server's log that say an incident of `fault` began (FaultMonitor: one per incident). */
export function incidentLines(logs: string, fault: string): number {
  return logs.split('\n').filter((line) => line.includes('fault began') && line.includes(`"fault":"${fault}"`)).length;
}
