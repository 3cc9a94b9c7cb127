// The plot's samples: f(x + t·v) and its derivative d/dt for t in [-1, 1], the derivative from the
// generated tangent code (one tangent sweep per sample, the direction v on the independents).
import { compile, loadGenerated } from '../../../src/index.js';
import { generatedOf, runTangent } from '../../../src/api/sweeps.js';
import { axpy, compact, flatten, randomLike, rng } from '../../../src/api/values.js';
import type { Param } from '../../../src/ir/types.js';
import type { PlotData } from '../protocol.js';
import { diagnosticsError } from './generate.js';
import { argumentFromJson, headFunc, parseJson, pointFor } from './point.js';

const SAMPLES = 81;

export function samplePlot(source: string, head: string, input: string, direction: string, seed: number): PlotData {
  const r = compile(source, { head, modes: ['tangent'], js: true, runtimeImport: null });
  if (r.diagnostics.length) throw diagnosticsError(r.diagnostics);
  const { mod, func } = headFunc(source, head);
  const loaded = loadGenerated(r.code, r.runtimeNames);
  const tangent = r.manifest.find((m) => m.mode === 'tangent' && m.of === func.name);
  if (!tangent) throw new Error(`no tangent was generated for '${head}'`);
  const params = func.params.map((p) => p.name);
  const x = pointFor(mod, func, input, 1, (args) => loaded[func.name](...args));
  const g = generatedOf(r.manifest, r.wrt, loaded, params, x, { primal: func.name, tangent: tangent.name, vector: '' });
  const v = directionFor(g.wrt.map((j) => func.params[j]), g.wrt.map((j) => x[j]), direction, seed);
  const t: number[] = [], f: number[] = [], df: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const ti = -1 + (2 * i) / (SAMPLES - 1);
    const moved = x.map((a, j) => (g.wrt.includes(j) ? axpy(a, ti, v[g.wrt.indexOf(j)]) : a));
    const [value, dvalue] = runTangent(g, moved, v);
    if (typeof value !== 'number' && value !== null) throw new Error(`the plot needs a function returning a number; '${head}' returns ${value === undefined ? 'nothing' : typeof value}`);
    t.push(ti);
    // (a null result, `number | null`, leaves a gap)
    f.push(value ?? NaN);
    df.push(value === null ? NaN : (dvalue as number));
  }
  return { t, f, df, point: params.map((p, j) => `${p} = ${compact(x[j])}`).join(', '), direction: g.wrt.map((j, k) => `${params[j]} = ${compact(v[k])}`).join(', ') };
}

/**
 * The direction v, one entry per independent shaped like its argument: the user's JSON (an array in the
 * independents' order, or an object keyed by their names), else random entries in [-1, 1].
 */
function directionFor(independents: Param[], at: unknown[], text: string, seed: number): unknown[] {
  if (!text.trim()) {
    const R = rng(seed);
    return at.map((a) => randomLike(a, R));
  }
  const data = parseJson(text, 'direction');
  const names = independents.map((p) => p.name).join(', ');
  const given = Array.isArray(data) ? data : typeof data === 'object' && data !== null ? independents.map((p) => (data as Record<string, unknown>)[p.name]) : null;
  if (!given || given.length !== independents.length || given.some((d) => d === undefined))
    throw new Error(`the direction needs one value per independent (${names}): a JSON array in that order, or an object keyed by name`);
  return independents.map((p, k) => {
    const d = argumentFromJson(given[k], p, 'direction');
    if (flatten(d).length !== flatten(at[k]).length) throw new Error(`direction: '${p.name}' must have as many numbers as the argument (${flatten(at[k]).length})`);
    return d;
  });
}
