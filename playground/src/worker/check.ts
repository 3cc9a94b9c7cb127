// The "Check" button: the library's checkCompiled (what `tsad --check --stats` runs: the tangent against
// divided differences, the adjoint against the tangent by the dot-product test, the vector mode against
// the scalar tangent, an empty tape after the adjoint), at the user's point or at random ones.
import { checkCompiled, compile, loadGenerated, type CheckReport } from '../../../src/index.js';
import type { CheckSummary } from '../protocol.js';
import { compact } from '../../../src/api/values.js';
import { headFunc, pointFor } from './point.js';
import { diagnosticsError } from './generate.js';

/** random points tried before a check near a kink is called inconclusive (as the CLI does) */
const RANDOM_POINTS = 5;

export function check(source: string, head: string, input: string): CheckSummary {
  const r = compile(source, { head, js: true, runtimeImport: null });
  if (r.diagnostics.length) throw diagnosticsError(r.diagnostics);
  const { mod, func } = headFunc(source, head);
  const loaded = loadGenerated(r.code, r.runtimeNames);
  const run = (args: unknown[]) => loaded[func.name](...args);
  // a point where the divided differences disagree between step sizes cannot judge the tangent
  const inconclusive = (x: CheckReport) => x.ok && x.unstable && x.tangentError > 1e-6;
  let values: unknown[];
  let rep: CheckReport;
  let seed = 1;
  do {
    values = pointFor(mod, func, input, seed, run);
    rep = checkCompiled(r, loaded, func.name, values);
  } while (!input.trim() && inconclusive(rep) && ++seed <= RANDOM_POINTS);

  const rows: [string, string][] = [
    ['tangent vs divided differences', `error ${rep.tangentError.toExponential(2)}, accuracy ${rep.accuracy.tangent.toFixed(1)} digits${rep.unstable ? ' (near a kink: steps disagree)' : ''}`],
  ];
  // (a tangent-only hand-written rule generates no adjoint to compare)
  if (Number.isFinite(rep.dotLeft)) rows.push(['adjoint vs tangent (dot product)', `${rep.dotLeft} vs ${rep.dotRight}, accuracy ${rep.accuracy.dot.toFixed(1)} digits`]);
  rows.push(['vector vs scalar tangents', `error ${rep.vectorError.toExponential(2)}`]);
  if (Number.isFinite(rep.dotLeft)) rows.push(['tape empty after adjoint', String(rep.tapeEmpty)]);
  if (rep.tape) {
    const t = rep.tape;
    rows.push(['tape pushes (floats / ints / refs)', `${t.pushes.floats} / ${t.pushes.ints} / ${t.pushes.refs}`]);
    rows.push(['tape peak', `${t.peakBytes} bytes`]);
    rows.push(['tape traffic (pushes + pops)', `${t.trafficBytes} bytes`]);
  }
  return {
    verdict: inconclusive(rep) ? 'INCONCLUSIVE' : rep.ok ? 'passed' : 'FAILED',
    point: func.params.map((p, j) => `${p.name} = ${compact(values[j])}`).join(', '),
    rows,
    messages: rep.messages,
  };
}
