// Arrays that may have more than one name: used other than by indexing or `.length` (passed to a
// call, stored, aliased, returned). An array that does not escape is reached only through its own
// variable, so rebinding that variable ends every access to the array it held.
import type { Expr, Func } from '../ir/types.js';
import { perFunction } from '../ir/per-function.js';
import { forEachChild, forEachStmt } from '../ir/util.js';

/**
 * arrays used other than by indexing or `.length` (passed, stored, aliased): they may gain other names
 * (`keeps`, when given, tells of a call's argument i that the callee keeps no name for it: such an
 * argument does not count)
 */
export function escapingArrays(f: Func, keepsNothing?: (fn: string, i: number) => boolean): ReadonlySet<string> {
  return keepsNothing ? findEscaping(f, keepsNothing) : escapingOf(f);
}

/** escapingArrays without `keepsNothing`, once per function object (each adjoint's passes ask it of the primal) */
const escapingOf = perFunction((f) => findEscaping(f));

function findEscaping(f: Func, keepsNothing?: (fn: string, i: number) => boolean): Set<string> {
  const out = new Set<string>();
  // (one visitor of children for the walk, not one per node)
  const visitChild = (c: Expr): void => visit(c, false);
  const visit = (e: Expr, direct: boolean): void => {
    switch (e.k) {
      case 'call':
        e.args.forEach((a, i) => visit(a, !!keepsNothing && a.k === 'var' && keepsNothing(e.fn, i)));
        return;
      case 'var':
        if (!direct) out.add(e.name);
        return;
      case 'idx':
        visit(e.obj, true);
        visit(e.index, false);
        return;
      case 'len':
        visit(e.obj, true);
        return;
      default:
        forEachChild(e, visitChild);
    }
  };
  forEachStmt(f.body, (s) => {
    if (s.k === 'decl' && s.init) visit(s.init, s.init.k === 'alloc');
    else if (s.k === 'assign') {
      visit(s.value, false);
      if (s.target.k !== 'var') visit(s.target, true);
    } else if (s.k === 'expr') {
      // handing a buffer or array back to the tape's free lists gives it no other name
      if (!(s.e.k === 'intr' && (s.e.fn === 'tape.freeF' || s.e.fn === 'tape.giveBack'))) visit(s.e, false);
    } else if (s.k === 'return' && s.e) visit(s.e, false);
    else if (s.k === 'if') visit(s.c, false);
    else if ((s.k === 'while' || s.k === 'do') && s.cond) visit(s.cond, false);
    else if (s.k === 'for' && s.cond) visit(s.cond, false);
    else if (s.k === 'switch') visit(s.disc, false);
  });
  return out;
}
