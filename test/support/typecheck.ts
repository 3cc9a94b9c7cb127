// Type-checks many generated modules in one TypeScript program (strict), with `tsad/runtime`
// resolved to the runtime sources.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// the repository root (also when this file runs compiled, e.g. from node_modules/.cache by `npm run fuzz`)
const ROOT = (() => {
  const here = dirname(fileURLToPath(import.meta.url));
  for (let d = resolve(here, '..', '..'); dirname(d) !== d; d = dirname(d)) if (existsSync(join(d, 'src', 'runtime', 'index.ts'))) return d;
  return resolve(here, '..', '..');
})();

export function typecheckModules(modules: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'tsad-tc-'));
  const files: string[] = [];
  for (const [name, code] of Object.entries(modules)) {
    const f = join(dir, name.replace(/[^\w.-]/g, '_') + '.ts');
    writeFileSync(f, code);
    files.push(f);
  }
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2020,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    types: [],
    lib: ['lib.es2020.d.ts'],
    paths: { 'tsad/runtime': [join(ROOT, 'src/runtime/index.ts')] },
  };
  const program = ts.createProgram(files, options);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.category === ts.DiagnosticCategory.Error)
    .map((d) => {
      const where = d.file ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
      return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
}
