import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPORT_FILE_ENV, type FaultRow } from './harness.js';

/**
 * Global setup of `npm run test:faults`: a file the test files append their rows to (harness.ts, recordFault), and at
 * the end the table issue #37 asks for: fault, requests during it, 5xx by code, time to recover, objects lost.
 */
export function setup(): () => void {
  const file = path.join(os.tmpdir(), `dam-faults-report-${process.pid}.jsonl`);
  rmSync(file, { force: true });
  process.env[REPORT_FILE_ENV] = file;
  return () => {
    let rows: FaultRow[] = [];
    try {
      rows = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as FaultRow);
    } catch {
      // no test recorded a row
    }
    rmSync(file, { force: true });
    const table = [
      ['fault', 'requests during', '5xx by code', 'time to recover', 'objects lost'],
      ...rows.map((r) => [
        r.fault,
        String(r.requests),
        Object.entries(r.errors).map(([code, n]) => `${n} x ${code}`).join(', ') || 'none',
        `${r.recoverSeconds.toFixed(1)} s`,
        String(r.objectsLost),
      ]),
    ];
    const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
    const line = (row: string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
    const out = [line(table[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...table.slice(1).map(line)];
    process.stdout.write(`\nFaults (issue #37):\n${out.join('\n')}\n`);
  };
}
