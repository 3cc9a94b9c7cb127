// Located, actionable diagnostics: file:line:column, a code frame, what is wrong, what to write instead.
import type { Loc } from '../ir/types.js';

export interface Diagnostic {
  file: string;
  line: number;
  col: number;
  message: string;
  hint?: string;
  frame?: string;
  severity: 'error' | 'warning';
}

export class TsadError extends Error {
  constructor(public diagnostics: Diagnostic[]) {
    super(diagnostics.map(formatDiagnostic).join('\n\n'));
    this.name = 'TsadError';
  }
}

export function codeFrame(source: string, line: number, col: number): string {
  const lines = source.split(/\r?\n/);
  const out: string[] = [];
  const width = String(Math.min(lines.length, line + 1)).length;
  for (let l = Math.max(1, line - 1); l <= Math.min(lines.length, line + 1); l++) {
    const mark = l === line ? '>' : ' ';
    out.push(`${mark} ${String(l).padStart(width)} | ${lines[l - 1]}`);
    if (l === line) out.push(`  ${' '.repeat(width)} | ${' '.repeat(Math.max(0, col - 1))}^`);
  }
  return out.join('\n');
}

export function formatDiagnostic(d: Diagnostic): string {
  let s = `${d.file}:${d.line}:${d.col}: ${d.severity}: ${d.message}`;
  if (d.frame) s += '\n' + d.frame;
  if (d.hint) s += `\n  hint: ${d.hint}`;
  return s;
}

/** Collects diagnostics for one compilation; `sources` gives code frames. */
export class DiagnosticBag {
  readonly list: Diagnostic[] = [];
  constructor(readonly sources: Map<string, string>) {}

  error(loc: Loc | undefined, message: string, hint?: string): void {
    const l = loc ?? { file: '<input>', line: 1, col: 1 };
    const src = this.sources.get(l.file);
    this.list.push({
      file: l.file,
      line: l.line,
      col: l.col,
      message,
      hint,
      frame: src === undefined ? undefined : codeFrame(src, l.line, l.col),
      severity: 'error',
    });
  }

  get hasErrors(): boolean {
    return this.list.some((d) => d.severity === 'error');
  }

  throwIfErrors(): void {
    if (this.hasErrors) throw new TsadError(this.list);
  }
}
