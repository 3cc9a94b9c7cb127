// The fuzz property `blocks`: the sparse Jacobian of the generator's function `fb`, made of loops over
// independent items (BlocksSpec in generator.ts; the head calls it, so the other properties check it
// in every mode as a callee), as `tsad --jacobian --sparse` computes it (sparseJacobianAt,
// src/api/blocks.ts): by blocks where src/transform/blocks.ts accepts it, else by colouring (a number
// carried to the next iteration, an output among the independents, a computed index into a helper's
// result, … ). Either way it must equal the dense Jacobian (the tangent's columns) entry by entry, and
// times one random direction the tangent along it. `fb`'s independents and arguments are in the comment
// above it, so a saved regression replays without the generator.
import { compile, type CompileResult } from '../../src/api/compile.js';
import { loadGenerated, type LoadedModule } from '../../src/api/load.js';
import { sparseJacobianAt } from '../../src/api/blocks.js';
import { toDense } from '../../src/api/sparse.js';
import { fromColumns, generatedOf, independentCount, outputCount, outputTangent, tangentColumns } from '../../src/api/sweeps.js';
import { clone, flatten, randomLike, rng } from '../../src/api/values.js';
import { drawArg } from '../support/corpus.js';
import type { ArgSpec } from '../corpus/types.js';
import type { Finding } from './checks.js';

/** `fb` of a generated module, checked at arguments drawn from `seed`; `checked` false without one (or at a non-finite point) */
export function checkBlocks(source: string, seed: number): { checked: boolean; by?: 'blocks' | 'colouring'; findings: Finding[] } {
  const m = /^\/\/ fb: .*: wrt ([\w,]+); arguments (.*)$/m.exec(source);
  if (!m) return { checked: false, findings: [] };
  try {
    const js = compile(source, { head: 'fb', wrt: m[1].split(','), modes: ['tangent', 'vector'], js: true, runtimeImport: null });
    const errors = js.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length) return { checked: true, findings: [{ prop: 'blocks', message: `fb is rejected: ${errors.map((d) => `${d.line}:${d.col} ${d.message}`).join('; ')}` }] };
    const r = rng(seed);
    const args = (JSON.parse(m[2]) as ArgSpec[]).map((a) => drawArg(a, r));
    const params = js.manifest.find((e) => e.of === 'fb' && e.mode === 'tangent')!.params.filter((p) => p.role === 'primal').map((p) => p.name);
    return checkAt(source, js, loadGenerated(js.code), 'fb', params, args);
  } catch (e) {
    return { checked: true, findings: [{ prop: 'blocks', message: `the sparse Jacobian of fb threw: ${(e as Error)?.message ?? e}`, observed: (e as Error)?.stack?.split('\n').slice(0, 6).join('\n') }] };
  }
}

const numberArray = (v: unknown, depth: number): boolean =>
  v instanceof Float64Array || (Array.isArray(v) && v.every((x) => typeof x === 'number' || (depth > 1 && numberArray(x, depth - 1))));

/**
 * The property at one point; `checked` false where it does not apply (an output or an independent that
 * is not an array of numbers, a value not finite). `by`: how the sparse Jacobian was computed.
 */
function checkAt(source: string, js: CompileResult, mod: LoadedModule, head: string, params: string[], args: unknown[]): { checked: boolean; by?: 'blocks' | 'colouring'; findings: Finding[] } {
  const eT = js.manifest.find((m) => m.of === head && m.mode === 'tangent');
  const eV = js.manifest.find((m) => m.of === head && m.mode === 'vector');
  if (!eT) return { checked: false, findings: [] };
  const g = generatedOf(js.manifest, js.wrt, mod, params, args, { primal: head, tangent: eT.name, vector: eV?.name ?? '' }, js.of);
  const after = clone(args);
  const y = (mod[head] as (...a: unknown[]) => unknown)(...after);
  const outputs = js.of.map((o) => (o === 'return' ? y : after[params.indexOf(o)]));
  if (!g.wrt.length || !outputs.every((o) => numberArray(o, 1)) || !g.wrt.every((i) => numberArray(args[i], 2))) return { checked: false, findings: [] };
  const m = outputCount(g, args), n = independentCount(g, args);
  const D = fromColumns((cols) => tangentColumns(g, args, cols), m, n);
  if (!D.every((row) => row.every(Number.isFinite))) return { checked: false, findings: [] };
  const { matrix, notBlocks } = sparseJacobianAt({ 'program.ts': source }, g, params, js.of, args);
  const by = notBlocks === undefined ? 'blocks' : 'colouring';
  const what = by === 'blocks' ? 'the block Jacobian' : `the colouring Jacobian (not by blocks: ${notBlocks})`;
  const findings: Finding[] = [];
  const B = toDense(matrix);
  if (B.length !== m || B.some((row) => row.length !== n)) {
    findings.push({ prop: 'blocks', message: `${what} is ${B.length} × ${B[0]?.length ?? 0}, the dense Jacobian ${m} × ${n}`, args });
    return { checked: true, by, findings };
  }
  for (let i = 0; i < m && !findings.length; i++)
    for (let j = 0; j < n; j++)
      if (!(Math.abs(B[i][j] - D[i][j]) <= 1e-9 * (1 + Math.abs(D[i][j])))) {
        findings.push({ prop: 'blocks', message: `${what} differs from the dense Jacobian at row ${i}, column ${j}`, observed: String(B[i][j]), expected: String(D[i][j]), args });
        break;
      }
  // times a random direction, against the tangent along it
  const R = rng(0x5eed + m * 31 + n);
  const dirs = g.wrt.map((i) => randomLike(args[i], R));
  const v = dirs.flatMap((d) => flatten(d));
  const want = outputTangent(g, args, dirs);
  const got = new Float64Array(m), scale = new Float64Array(m);
  matrix.values.forEach((x, e) => {
    got[matrix.rows[e]] += x * v[matrix.cols[e]];
    scale[matrix.rows[e]] += Math.abs(x * v[matrix.cols[e]]);
  });
  for (let i = 0; i < m && !findings.length; i++)
    if (Number.isFinite(want[i]) && !(Math.abs(got[i] - want[i]) <= 1e-9 * (1e-3 + scale[i] + Math.abs(want[i]))))
      findings.push({ prop: 'blocks', message: `${what} times a random direction differs from the tangent along it (row ${i})`, observed: String(got[i]), expected: String(want[i]), args });
  return { checked: true, by, findings };
}
