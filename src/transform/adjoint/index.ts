// Adjoint mode, store-all across calls (Tapenade §4.4–§4.5 with checkpointing off): each function is
// split into a forward sweep (f_fwd: the primal plus save-on-kill pushes and control recording) and a
// backward sweep (f_bwd: restores by pops, derivative statements in reverse, control reversed). The
// head's f_b runs both on one tape. Every value the backward sweep reads is restored to what it was at
// the mirrored point of the forward sweep, so the adjoint of each statement sees its own pre-state.
// Entry point: each concern lives in its own module next to this one (loops/ for the loop strategies).
import { timed } from '../../ir/timing.js';
import type { Func } from '../../ir/types.js';
import type { ProgramInfo } from '../context.js';
import { customAdjointFuncs } from '../custom.js';
import { hoistInvariantFields, hoistInvariantLoads } from '../licm.js';
import { reused } from '../reuse.js';
import { adjointContext } from './calls.js';
import { backward, forward, head } from './signature.js';
import { scratchOf } from './context.js';

export interface AdjointOutput {
  func: Func;
  role: 'reverse' | 'forward' | 'backward';
}

export function adjointFuncs(info: ProgramInfo, name: string): AdjointOutput[] {
  if (info.func(name).custom) return customAdjointFuncs(info, name); // a hand-written rule (../custom.ts)
  // (a function and its callees unchanged since an earlier compile: its sweeps then, ../reuse.ts)
  return reused(info, name, 'adjoint', () => {
    const cx = adjointContext(info, name); // (built once: its callers asked about it first)
    const out: AdjointOutput[] = [
      { func: timed('licm', () => hoistInvariantLoads(forward(cx), scratchAliases(cx))), role: 'forward' },
      // (a backward sweep's loops read its instance's arrays too: `selfb.lower[t] += …`)
      { func: timed('licm', () => hoistInvariantFields(backward(cx))), role: 'backward' },
    ];
    if (name === info.head) out.push({ func: head(cx, out[0].func), role: 'reverse' });
    return out;
  });
}

/** a method's aliases of its instance's scratch fields, and their adjoints: each array has that one name */
function scratchAliases(cx: ReturnType<typeof adjointContext>): string[] {
  const mine = scratchOf(cx).aliases.get(cx.name);
  return mine ? [...mine.keys()].flatMap((n) => [n, cx.b.of(n)]) : [];
}

export { adjointNames } from './context.js';
