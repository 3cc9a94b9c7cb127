import { join } from 'node:path';
import { evalFn, field, int, mat, toList, vec, type EvalIO } from '../common.js';
import { dataPath, readEvalFile } from '../paths.js';
import { htObjectiveComplicated, htObjectiveSimple, type HandModel } from './objective.js';

export interface HtArgs {
  theta: number[];
  /** [P][2] surface coordinates, complicated variant only; [] for the simple variant */
  us: number[][];
  complicated: boolean;
  model: HandModel;
  correspondences: number[];
  points: number[][];
}

function tensor3(v: unknown, what: string, n: number): number[][][] {
  if (!Array.isArray(v) || v.length !== n) throw new Error(`${what}: expected ${n} 4x4 matrices`);
  return v.map((m: unknown, i: number) => mat(m, `${what}[${i}]`, 4, 4));
}

export function prepare(input: unknown): HtArgs {
  const theta = vec(field(input, 'theta'), 'theta', 26);
  const data = field(input, 'data');
  const m = field(data, 'model');
  const parents = vec(field(m, 'parents'), 'parents');
  const boneCount = parents.length;
  if (int(field(m, 'bone_count'), 'bone_count') !== boneCount) throw new Error('ht: bone_count != parents.length');
  const basePositions = mat(field(m, 'base_positions'), 'base_positions', undefined, 4);
  const model: HandModel = {
    parents,
    baseRelatives: tensor3(field(m, 'base_relatives'), 'base_relatives', boneCount),
    inverseBaseAbsolutes: tensor3(field(m, 'inverse_base_absolutes'), 'inverse_base_absolutes', boneCount),
    basePositions,
    weights: mat(field(m, 'weights'), 'weights', basePositions.length, boneCount),
    triangles: mat(field(m, 'triangles'), 'triangles', undefined, 3),
    isMirrored: field(m, 'is_mirrored') === true,
  };
  const correspondences = vec(field(data, 'correspondences'), 'correspondences');
  const points = mat(field(data, 'points'), 'points', correspondences.length, 3);
  const usRaw = field(input, 'us');
  const complicated = Array.isArray(usRaw) && usRaw.length > 0;
  const us = complicated ? mat(usRaw, 'us', correspondences.length, 2) : [];
  return { theta, us, complicated, model, correspondences, points };
}

export function runObjective(a: HtArgs): Float64Array {
  return a.complicated
    ? htObjectiveComplicated(a.theta, a.us, a.model, a.correspondences, a.points)
    : htObjectiveSimple(a.theta, a.model, a.correspondences, a.points);
}

export const io: EvalIO<HtArgs> = {
  name: 'ht',
  prepare,
  primal: {
    objective: evalFn(runObjective, (r: Float64Array) => toList(r)),
  },
  // jacobian: number[3P][26] (simple) or number[3P][28] (complicated: 2 compressed us columns, then theta)
  derivatives: ['jacobian'],
};

// ---------------------------------------------------------------------------
// Building the eval's input from the shipped data (data/ht/model_{small,big}, data/ht/<variant>_<model>/)

export type HtVariant = 'simple' | 'complicated';
export type HtModelSize = 'small' | 'big';

/** Input JSON object as the eval sends it, built from a model directory and a hand file. */
export function loadHtInput(variant: HtVariant, modelSize: HtModelSize, handStem: string): Record<string, unknown> {
  const modelDir = dataPath('ht', `model_${modelSize}`);
  const model = loadHtModel(modelDir);
  const hand = readEvalFile(dataPath('ht', `${variant}_${modelSize}`, `${handStem}.txt`));
  const tok = hand.trim().split(/\s+/);
  let pos = 0;
  const next = (): number => {
    if (pos >= tok.length) throw new Error(`ht: hand file ${handStem} ends early`);
    return Number(tok[pos++]);
  };
  const np = next();
  const nTheta = next();
  const correspondences: number[] = [];
  const points: number[][] = [];
  for (let i = 0; i < np; i++) {
    correspondences.push(next());
    points.push([next(), next(), next()]);
  }
  const us: number[][] = [];
  if (variant === 'complicated') for (let i = 0; i < np; i++) us.push([next(), next()]);
  const theta: number[] = [];
  for (let i = 0; i < nTheta; i++) theta.push(next());
  return { theta, data: { model, correspondences, points }, us };
}

/** The `data.model` JSON object from bones.txt, vertices.txt and triangles.txt. */
export function loadHtModel(dir: string): Record<string, unknown> {
  const lines = (file: string): string[] =>
    readEvalFile(join(dir, file))
      .split('\n')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
  const boneNames: string[] = [];
  const parents: number[] = [];
  const baseRelatives: number[][][] = [];
  const inverseBaseAbsolutes: number[][][] = [];
  const mat4 = (v: number[]): number[][] => [v.slice(0, 4), v.slice(4, 8), v.slice(8, 12), v.slice(12, 16)];
  for (const line of lines('bones.txt')) {
    const f = line.split(':');
    boneNames.push(f[0]);
    parents.push(Number(f[1]));
    const nums = f.slice(2).map(Number);
    baseRelatives.push(mat4(nums.slice(0, 16)));
    inverseBaseAbsolutes.push(mat4(nums.slice(16, 32)));
  }
  const boneCount = boneNames.length;
  const basePositions: number[][] = [];
  const weights: number[][] = [];
  for (const line of lines('vertices.txt')) {
    const f = line.split(':').map(Number);
    basePositions.push([f[0], f[1], f[2], 1]);
    const w = new Array<number>(boneCount).fill(0);
    const count = f[8];
    for (let t = 0; t < count; t++) w[f[9 + 2 * t]] = f[10 + 2 * t];
    weights.push(w);
  }
  const triangles = lines('triangles.txt').map((l) => l.split(':').map(Number));
  return {
    bone_count: boneCount,
    bone_names: boneNames,
    parents,
    base_relatives: baseRelatives,
    inverse_base_absolutes: inverseBaseAbsolutes,
    base_positions: basePositions,
    weights,
    triangles,
    is_mirrored: false,
  };
}
