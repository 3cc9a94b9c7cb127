import { evalFn, field, int, num, vec, type EvalIO } from '../common.js';
import { dataPath, readEvalFile } from '../paths.js';
import { baObjective } from './objective.js';

/** The eval's compressed input: one camera, point, weight and feature, replicated. */
export interface BaInput {
  n: number;
  m: number;
  p: number;
  cam: number[];
  x: number[];
  w: number;
  feat: number[];
}

/** Expanded problem (cameras, points, weights, features, observation links) plus output buffers. */
export interface BaArgs {
  n: number;
  m: number;
  p: number;
  cams: number[][]; // [n][11]
  points: number[][]; // [m][3]
  weights: number[]; // [p]
  features: number[][]; // [p][2]
  obs: number[]; // [2p]: obs[2i] = i mod n (camera), obs[2i+1] = i mod m (point)
  reprojErr: Float64Array; // [2p] output
  wErr: Float64Array; // [p] output
}

export function parseInput(input: unknown): BaInput {
  const n = int(field(input, 'n'), 'n');
  const m = int(field(input, 'm'), 'm');
  const p = int(field(input, 'p'), 'p');
  const cam = vec(field(input, 'cam'), 'cam', 11);
  const x = vec(field(input, 'x'), 'x', 3);
  const w = num(field(input, 'w'), 'w');
  const feat = vec(field(input, 'feat'), 'feat', 2);
  if (n < 1 || m < 1 || p < 1) throw new Error('ba: n, m, p must be >= 1');
  return { n, m, p, cam, x, w, feat };
}

/** Expands the compressed input as the eval requires (separate copies, no exploitation of duplication). */
export function expand(b: BaInput): BaArgs {
  const cams = new Array<number[]>(b.n);
  for (let j = 0; j < b.n; j++) cams[j] = b.cam.slice();
  const points = new Array<number[]>(b.m);
  for (let j = 0; j < b.m; j++) points[j] = b.x.slice();
  const weights = new Array<number>(b.p).fill(b.w);
  const features = new Array<number[]>(b.p);
  for (let i = 0; i < b.p; i++) features[i] = b.feat.slice();
  const obs = new Array<number>(2 * b.p);
  for (let i = 0; i < b.p; i++) {
    obs[2 * i] = i % b.n;
    obs[2 * i + 1] = i % b.m;
  }
  return {
    n: b.n,
    m: b.m,
    p: b.p,
    cams,
    points,
    weights,
    features,
    obs,
    reprojErr: new Float64Array(2 * b.p),
    wErr: new Float64Array(b.p),
  };
}

export function prepare(input: unknown): BaArgs {
  return expand(parseInput(input));
}

export function runObjective(a: BaArgs): BaArgs {
  baObjective(a.cams, a.points, a.weights, a.features, a.obs, a.reprojErr, a.wErr);
  return a;
}

/** The eval's compressed objective output. */
export function objectiveJson(a: BaArgs): unknown {
  return {
    reproj_error: { elements: [a.reprojErr[0], a.reprojErr[1]], repeated: a.p },
    w_err: { element: a.wErr[0], repeated: a.p },
  };
}

export const io: EvalIO<BaArgs> = {
  name: 'ba',
  prepare,
  primal: {
    objective: evalFn(runObjective, objectiveJson),
  },
  // jacobian: CSR of d(residuals)/d(cams, points, weights); first 30 + last entries of rows/cols/vals
  derivatives: ['jacobian'],
};

// ---------------------------------------------------------------------------
// Data files (data/ba/ba{i}_n{n}_m{m}_p{p}.txt): `n m p`, 11 camera numbers, 3 point
// coordinates, the weight, 2 feature coordinates (whitespace separated).

/** Parses a ba data file into the eval's JSON input object. */
export function parseBaFile(text: string): BaInput {
  const t = text.trim().split(/\s+/).map(Number);
  if (t.length !== 20 || t.some((v) => Number.isNaN(v))) throw new Error(`ba: malformed data file (${t.length} numbers)`);
  return { n: t[0], m: t[1], p: t[2], cam: t.slice(3, 14), x: t.slice(14, 17), w: t[17], feat: t.slice(18, 20) };
}

/** Loads data/ba/<stem>.txt, e.g. loadBaInput('ba1_n49_m7776_p31843'). */
export function loadBaInput(stem: string): BaInput {
  return parseBaFile(readEvalFile(dataPath('ba', `${stem}.txt`)));
}
