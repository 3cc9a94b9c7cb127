// Operations the transformations do not differentiate yet. They are refused where they are written,
// before any derivative is built: passed through, they would leave an array and its shadow with
// different lengths, and the derivative would be silently wrong.
import type { Func } from '../ir/types.js';
import { forEachExpr, forEachStmt, stmtExprs } from '../ir/util.js';
import { TransformError } from './tangent.js';

/** throws a located TransformError at the first operation of `f` that no mode can differentiate */
export function refuseUnsupportedOps(f: Func): void {
  // tsad's own backward sweeps (a tape parameter: nested differentiation) pop exactly what their forward
  // sweeps pushed, reading by the primal's length; those pops are differentiated (test/nested.test.ts)
  if (f.params.some((p) => p.ty.k === 'tape')) return;
  forEachStmt(f.body, (s) => {
    for (const e of stmtExprs(s))
      forEachExpr(e, (x) => {
        if (x.k === 'intr' && x.fn === 'pop')
          throw new TransformError("taking an array's last element off with `pop` is not supported in differentiated code: read it and count the length down instead (`const v = st[n - 1]; n--`)", s);
      });
  });
}
