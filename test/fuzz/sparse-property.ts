// The fuzz property `sparse`: sparse Jacobians and Hessians (src/api/sparse.ts: the pattern detected by
// NaN-seeded sweeps, coloured, one compressed sweep, the entries recovered) of a generated program equal
// the dense matrices taken column by column with the scalar tangent (one unit direction a sweep), entry by
// entry: the Jacobian of the first-order module (rows: the result and the arrays written), and, where
// second derivatives were compiled, the Hessian through the gradient's vector tangent. A pattern missing
// an entry, a colouring that mixes two columns sharing a row, or a wrong recovery shows here.
import type { CompileResult } from '../../src/api/compile.js';
import type { LoadedModule } from '../../src/api/load.js';
import { sparseAt, toDense } from '../../src/api/sparse.js';
import { fromColumns, generatedOf, independentCount, outputCount, packedSweep, tangentColumns, type Generated } from '../../src/api/sweeps.js';
import type { Finding } from './checks.js';

/** the dense matrix by scalar tangents, and the sparse one by compressed sweeps, compared */
function compare(what: string, g: Generated, args: unknown[], kind: 'jacobian' | 'hessian', m: number, n: number): Finding[] {
  if (m === 0 || n === 0) return [];
  const scalar: Generated = { ...g, vector: null };
  const dense = fromColumns((js) => tangentColumns(scalar, args, js), m, n);
  const { matrix } = sparseAt(kind, packedSweep(g, args), m, n, undefined);
  const got = toDense(matrix);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      const a = got[i][j], b = dense[i][j];
      if (a === b || (a !== a && b !== b) || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b))) continue;
      return [{ prop: 'sparse', message: `the sparse ${what} differs from the dense one at (${i}, ${j}) (${matrix.info.colours} colours, ${matrix.info.nnz} entries)`, observed: String(a), expected: String(b), args }];
    }
  return [];
}

/** The sparse Jacobian of `js`'s head, and the sparse Hessian of `hvp` where given, at `args`. */
export function checkSparse(js: CompileResult, gen: LoadedModule, hvp: { result: CompileResult; mod: LoadedModule } | undefined, head: string, params: string[], args: unknown[]): Finding[] {
  const g = generatedOf(js.manifest, js.wrt, gen, params, args, { primal: head, tangent: `${head}_d`, vector: `${head}_dv` }, js.of);
  if (!g.tangent) return [];
  const found = compare('Jacobian', g, args, 'jacobian', outputCount(g, args), independentCount(g, args));
  // (a Hessian over an independent left out is refused by the API: the gradient keeps its entry)
  if (found.length || !hvp || hvp.result.wrt.some((w) => args[params.indexOf(w)] === undefined)) return found;
  const h = generatedOf(hvp.result.manifest, hvp.result.wrt, hvp.mod, params, args, { primal: `${head}_grad`, tangent: `${head}_grad_d`, vector: `${head}_grad_dv` });
  const n = independentCount(h, args);
  return compare('Hessian', h, args, 'hessian', n, n);
}
