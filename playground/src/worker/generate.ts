// The generated code shown beside the editor: one compile per mode, so each pane holds what
// `tsad --mode <mode>` prints (the front end runs once: compile() keeps its result for the same text).
import { compile, type Diagnostic } from '../../../src/index.js';
import type { Generated, Located } from '../protocol.js';

const MODES = { tangent: 'tangent', vector: 'vector', adjoint: 'reverse' } as const;

/** the editor holds one file: diagnostics of other files (none so far) are shown at its top */
export function located(ds: readonly Diagnostic[]): Located[] {
  return ds.map((d) => (d.file === 'input.ts' ? { line: d.line, col: d.col, message: d.message, hint: d.hint } : { line: 1, col: 1, message: `${d.file}:${d.line}:${d.col}: ${d.message}`, hint: d.hint }));
}

/** diagnostics met while checking or plotting, thrown to the worker's loop, which reports them located */
export class DiagnosticsError extends Error {
  constructor(readonly diagnostics: Located[]) {
    super(diagnostics.map((d) => `${d.line}:${d.col}: ${d.message}`).join('\n'));
  }
}

export function diagnosticsError(ds: readonly Diagnostic[]): DiagnosticsError {
  return new DiagnosticsError(located(ds));
}

export function generate(source: string, head: string): { code: Generated | null; diagnostics: Located[]; wrt: string[] } {
  const code: Partial<Generated> = {};
  let wrt: string[] = [];
  for (const [pane, mode] of Object.entries(MODES) as [keyof Generated, (typeof MODES)[keyof Generated]][]) {
    const r = compile(source, { head, modes: [mode] });
    // every mode reports the same problems: the first one's are all of them
    if (r.diagnostics.length) return { code: null, diagnostics: located(r.diagnostics), wrt: [] };
    code[pane] = r.code;
    wrt = r.wrt;
  }
  return { code: code as Generated, diagnostics: [], wrt };
}
