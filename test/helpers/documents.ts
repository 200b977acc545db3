import { createHash } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Test documents written byte by byte (deterministic, no tool needed) and a stand-in for LibreOffice. */

export interface PdfPage {
  /** Points (1/72 inch). */
  width: number;
  height: number;
  /** The colour of a band across the top quarter of the page, 0-255 per channel; the rest stays white. */
  band: [number, number, number];
}

/** The Standard security handler's padding string (PDF 1.7, 7.6.3.3). */
const PADDING = Buffer.from('28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A', 'hex');

function rc4(key: Buffer, data: Buffer): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 255;
    j = (j + s[i]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 255]!;
  }
  return out;
}

const md5 = (...parts: Buffer[]) => createHash('md5').update(Buffer.concat(parts)).digest();
const padded = (password: string) => Buffer.concat([Buffer.from(password, 'latin1'), PADDING]).subarray(0, 32);

/**
 * The /Encrypt dictionary of RC4 40-bit encryption (revision 2) with a user password, and the file
 * id it is bound to: a reader without the password cannot open the file. (The page content is
 * left unencrypted: a reader never gets that far.)
 */
function encryption(userPassword: string): { dictionary: string; id: Buffer } {
  const id = md5(Buffer.from('dam test document'));
  const owner = rc4(md5(padded('owner secret')).subarray(0, 5), padded(userPassword));
  const permissions = Buffer.alloc(4);
  permissions.writeInt32LE(-4);
  const key = md5(padded(userPassword), owner, permissions, id).subarray(0, 5);
  const user = rc4(key, PADDING);
  return { dictionary: `<< /Filter /Standard /V 1 /R 2 /O <${owner.toString('hex')}> /U <${user.toString('hex')}> /P -4 >>`, id };
}

/** A valid PDF of the given pages (each a coloured band on white), optionally protected by a user password. */
export function minimalPdf(pages: PdfPage[], options: { userPassword?: string } = {}): Buffer {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body);
  const pageIds = pages.map((_, i) => 3 + i * 2);
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(`<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`);
  for (const [i, page] of pages.entries()) {
    const [r, g, b] = page.band.map((c) => (c / 255).toFixed(3));
    const band = `${r} ${g} ${b} rg 0 ${page.height * 0.75} ${page.width} ${page.height * 0.25} re f\n`;
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${page.width} ${page.height}] /Resources << >> /Contents ${pageIds[i]! + 1} 0 R >>`);
    add(`<< /Length ${Buffer.byteLength(band)} >>\nstream\n${band}endstream`);
  }
  const encrypt = options.userPassword === undefined ? undefined : encryption(options.userPassword);
  if (encrypt) add(encrypt.dictionary);

  let out = '%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n';
  const offsets: number[] = [];
  for (const [i, body] of objects.entries()) {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  const extra = encrypt ? ` /Encrypt ${objects.length} 0 R /ID [<${encrypt.id.toString('hex')}> <${encrypt.id.toString('hex')}>]` : '';
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${extra} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/**
 * A stand-in for LibreOffice's `soffice` that behaves as it does on the command line the service
 * uses: it insists on `-env:UserInstallation=file:///…`, `--headless`, `--convert-to pdf` and
 * `--outdir DIR`, writes DIR/<input's base name>.pdf (here a copy of `pdf`), and converts nothing
 * (still answering 0, as soffice does) when the input holds the word "unconvertible". Each run
 * appends its arguments as a JSON line to `log`.
 */
export function fakeSoffice(dir: string, pdf: Buffer): { path: string; log: string } {
  const pdfFile = path.join(dir, 'converted.pdf');
  const log = path.join(dir, 'soffice-calls.jsonl');
  const script = path.join(dir, 'soffice');
  writeFileSync(pdfFile, pdf);
  writeFileSync(
    script,
    `#!${process.execPath}
const fs = require('node:fs');
const path = require('node:path');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify(args) + '\\n');
const profile = args.find((a) => a.startsWith('-env:UserInstallation='));
const at = (flag) => { const i = args.indexOf(flag); return i >= 0 ? args[i + 1] : undefined; };
if (!profile || !profile.slice('-env:UserInstallation='.length).startsWith('file:///')) { console.error('no profile'); process.exit(1); }
if (!args.includes('--headless') || at('--convert-to') !== 'pdf' || !at('--outdir')) { console.error('usage'); process.exit(1); }
const input = args[args.length - 1];
if (fs.readFileSync(input, 'utf8').includes('unconvertible')) { console.error('Error: source file could not be loaded'); process.exit(0); }
const name = path.basename(input).replace(/\\.[^.]*$/, '') + '.pdf';
fs.copyFileSync(${JSON.stringify(pdfFile)}, path.join(at('--outdir'), name));
console.log('convert ' + input + ' -> ' + path.join(at('--outdir'), name) + ' using filter : writer_pdf_Export');
`,
  );
  chmodSync(script, 0o755);
  return { path: script, log };
}
