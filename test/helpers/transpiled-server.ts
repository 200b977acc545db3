import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The server's sources (src/) as JavaScript in a private directory, for a test that runs the process entry
 * (`node <dir>/server.js ...`) without the minute a type-checked `tsc` build takes, and without touching
 * the shared dist/. Each file is transpiled alone (tsconfig.json has isolatedModules, so that is exact).
 * The directory is under node_modules/.cache so that the entry resolves the project's packages; `remove`
 * deletes it.
 */
export function transpileServer(): { dir: string; entry: string; remove: () => void } {
  const dir = path.join(ROOT, 'node_modules', '.cache', `dam-transpiled-${process.pid}-${Date.now()}`);
  const tsconfig = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: unknown };
  const compilerOptions = ts.convertCompilerOptionsFromJson(tsconfig.compilerOptions, ROOT).options;
  const src = path.join(ROOT, 'src');
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
      const { outputText } = ts.transpileModule(readFileSync(path.join(src, file), 'utf8'), {
        // ES modules as the build emits them (package.json has "type": "module"); no file layout options.
        compilerOptions: { ...compilerOptions, module: ts.ModuleKind.ESNext, sourceMap: false, outDir: undefined, rootDir: undefined },
        fileName: path.join(src, file),
      });
      const out = path.join(dir, file.replace(/\.ts$/, '.js'));
      mkdirSync(path.dirname(out), { recursive: true });
      writeFileSync(out, outputText);
    }
  } catch (err) {
    remove();
    throw err;
  }
  return { dir, entry: path.join(dir, 'server.js'), remove };
}
