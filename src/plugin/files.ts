// The plugin's view of the file system: import specifiers as files, and a file with what it imports.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import ts from 'typescript';

/** An import specifier as a file: as written, else with a TypeScript extension for a `.js` one or none, else an index file. */
export function resolveFile(spec: string, dir: string): string | null {
  const base = isAbsolute(spec) ? spec : resolve(dir, spec);
  const stem = base.replace(/\.[cm]?js$/, '');
  for (const c of [base, `${stem}.ts`, `${stem}.mts`, `${stem}.cts`, `${base}.ts`, `${base}.js`, join(base, 'index.ts'), join(base, 'index.js')]) {
    if (existsSync(c) && statSync(c).isFile()) return c;
  }
  return null;
}

/** The file and the files it imports by relative path, transitively: the compiler's input, by absolute path. */
export function sourceFiles(file: string): Record<string, string> {
  const files: Record<string, string> = {};
  const todo = [file];
  while (todo.length) {
    const f = todo.pop()!;
    if (f in files) continue;
    const text = readFileSync(f, 'utf8');
    files[f] = text;
    for (const imp of ts.preProcessFile(text, true, false).importedFiles) {
      if (!imp.fileName.startsWith('.')) continue;
      const dep = resolveFile(imp.fileName, dirname(f));
      if (dep) todo.push(dep);
    }
  }
  return files;
}

