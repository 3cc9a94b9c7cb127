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

/** the widest code frame line: a generated 1,500-term expression on one line stays readable */
const FRAME_WIDTH = 120;

export function codeFrame(source: string, line: number, col: number): string {
  const lines = source.split(/\r?\n/);
  const out: string[] = [];
  const width = String(Math.min(lines.length, line + 1)).length;
  // (a long line is shown as the window around the column, the same window for its neighbours)
  const longest = Math.max(...lines.slice(Math.max(0, line - 2), line + 1).map((t) => t.length));
  const start = longest > FRAME_WIDTH ? Math.max(0, Math.min(col - 1 - FRAME_WIDTH / 3, longest - FRAME_WIDTH)) : 0;
  const cut = (t: string) => (t.length > FRAME_WIDTH ? `${start > 0 ? '…' : ''}${t.slice(start, start + FRAME_WIDTH)}${t.length > start + FRAME_WIDTH ? '…' : ''}` : t);
  for (let l = Math.max(1, line - 1); l <= Math.min(lines.length, line + 1); l++) {
    const mark = l === line ? '>' : ' ';
    out.push(`${mark} ${String(l).padStart(width)} | ${cut(lines[l - 1])}`);
    if (l === line) out.push(`  ${' '.repeat(width)} | ${' '.repeat(Math.max(0, col - 1 - start + (start > 0 ? 1 : 0)))}^`);
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
