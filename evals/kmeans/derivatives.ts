// kmeans: `dir` = G ⊘ H, G = d cost / d centroids, H = diag(d² cost / d centroids²).
//
// Nested source transformation: tsad's tangent of kmeansCost (TypeScript, plain code in tsad's
// subset) is compiled by tsad once more in reverse mode with respect to both the centroids and their
// tangent, seeding only the tangent output. With the tangent direction v = all ones, one adjoint
// sweep of kmeansCost_d gives both
//   d(∇f·v)/d centroids  = H v = H·1 = diag(H)   (the Hessian is diagonal), and
//   d(∇f·v)/d centroidsd = ∇f = G,
// i.e. the gradient and the Hessian diagonal together (reverse-over-forward).
import { deriveSource, derive, evalSource, zerosRows } from '../tsad.js';
import type { KmeansArgs } from './io.js';

type KmeansDB = (
  centroids: number[][], centroidsb: number[][], centroidsd: number[][], centroidsdb: number[][],
  points: number[][], resultb: [number, number],
) => void;

/** tsad's tangent of kmeansCost, as TypeScript (the first stage). */
export function kmeansTangentSource(): string {
  return deriveSource('kmeans/kmeansCost/tangent', () => ({ 'kmeans.ts': evalSource('kmeans') }), {
    head: 'kmeansCost',
    wrt: ['centroids'],
    modes: ['tangent'],
  });
}

function generated(): KmeansDB {
  return derive('kmeans/kmeansCost_d/reverse', () => ({ 'kmeans_d.ts': kmeansTangentSource() }), {
    head: 'kmeansCost_d',
    wrt: ['centroids', 'centroidsd'],
    modes: ['reverse'],
  }).fn<KmeansDB>('kmeansCost_d_b', ['centroids', 'centroidsb', 'centroidsd', 'centroidsdb', 'points', 'resultb']);
}

/** Gradient and Hessian diagonal, both [k][d], from one reverse sweep over the tangent code. */
export function gradientAndHessianDiagonal(a: KmeansArgs): { gradient: number[][]; hessianDiagonal: number[][] } {
  const ones = a.centroids.map((r) => new Array<number>(r.length).fill(1));
  const hessianDiagonal = zerosRows(a.centroids); // adjoint of centroids: H·1
  const gradient = zerosRows(a.centroids); // adjoint of the tangent: G
  generated()(a.centroids, hessianDiagonal, ones, gradient, a.points, [0, 1]);
  return { gradient, hessianDiagonal };
}

/** The Newton direction G ⊘ H, number[k][d]. */
export function dir(a: KmeansArgs): number[][] {
  const { gradient, hessianDiagonal } = gradientAndHessianDiagonal(a);
  return gradient.map((row, j) => row.map((g, u) => g / hessianDiagonal[j][u]));
}

export const derivatives = {
  dir: (a: KmeansArgs): unknown => dir(a),
};
