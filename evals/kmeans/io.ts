import { evalFn, field, mat, type EvalIO } from '../common.js';
import { kmeansCost } from './objective.js';

export interface KmeansArgs {
  centroids: number[][];
  points: number[][];
}

export function prepare(input: unknown): KmeansArgs {
  const points = mat(field(input, 'points'), 'points');
  if (points.length < 1) throw new Error('kmeans: no points');
  const d = points[0].length;
  const n = points.length;
  for (let i = 0; i < n; i++) if (points[i].length !== d) throw new Error(`kmeans: points[${i}] has length ${points[i].length}, expected ${d}`);
  const centroids = mat(field(input, 'centroids'), 'centroids', undefined, d);
  if (centroids.length < 1) throw new Error('kmeans: no centroids');
  return { centroids, points };
}

export const io: EvalIO<KmeansArgs> = {
  name: 'kmeans',
  prepare,
  primal: {
    cost: evalFn((a: KmeansArgs) => kmeansCost(a.centroids, a.points), (r: number) => r),
  },
  // dir: (d cost/d centroids) ⊘ diag(d^2 cost/d centroids^2), number[k][d]
  derivatives: ['dir'],
};
