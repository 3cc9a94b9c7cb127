// The front end alone on one source text: the IR of its function `f`, for tests of a lowering or a
// pass on lowered code.
import { DiagnosticBag } from '../../src/frontend/diagnostics.js';
import { createProgram, lowerProgram } from '../../src/frontend/lower.js';
import type { Func } from '../../src/ir/types.js';

export function lowered(src: string): Func {
  const files = new Map([['input.ts', src]]);
  const diags = new DiagnosticBag(new Map(files));
  const mod = lowerProgram(createProgram(files), new Set(files.keys()), diags, files);
  const f = mod.funcs.get('f');
  if (!f) throw new Error(`did not lower: ${JSON.stringify(diags)}`);
  return f;
}
