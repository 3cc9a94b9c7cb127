// Small helpers over IR shared by several adjoint concerns.
import type { Stmt } from '../../ir/types.js';
import { forEachStmt } from '../../ir/util.js';

/** does `s` (or a statement inside it) assign the variable `name`? */
export function assignsVar(s: Stmt, name: string): boolean {
  let found = false;
  forEachStmt([s], (st) => {
    if ((st.k === 'decl' && st.name === name) || (st.k === 'assign' && st.target.k === 'var' && st.target.name === name)) found = true;
  });
  return found;
}
