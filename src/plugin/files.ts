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

/**
 * The file and the files it imports by relative path, transitively: the compiler's input, by absolute
 * path. `view` gives what of the first file is compiled (its imports are those of the view).
 */
export function sourceFiles(file: string, view: (text: string) => string = (t) => t): Record<string, string> {
  const files: Record<string, string> = {};
  const todo = [file];
  while (todo.length) {
    const f = todo.pop()!;
    if (f in files) continue;
    const text = f === file ? view(readFileSync(f, 'utf8')) : readFileSync(f, 'utf8');
    files[f] = text;
    for (const imp of ts.preProcessFile(text, true, false).importedFiles) {
      if (!imp.fileName.startsWith('.')) continue;
      const dep = resolveFile(imp.fileName, dirname(f));
      if (dep) todo.push(dep);
    }
  }
  return files;
}

/** how TypeScript parses a file, by its extension */
export function scriptKind(file: string): ts.ScriptKind {
  return /\.[jt]sx$/.test(file) ? ts.ScriptKind.TSX : /\.[cm]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
}
