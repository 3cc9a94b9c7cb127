// kmeans: `dir` = G ⊘ H, G = d cost / d centroids, H = diag(d² cost / d centroids²).
//
// Nested source transformation, forward over reverse: tsad's adjoint of kmeansCost (TypeScript, plain
// code in tsad's subset, tape calls included) is compiled by tsad once more in tangent mode with
// respect to the centroids, its output being the adjoint `centroidsb`. With the tangent direction
// v = all ones, one call of the result gives both
//   centroidsb  = ∇f = G, and
//   centroidsbd = d(∇f)/d centroids · v = H v = H·1 = diag(H)   (the Hessian is diagonal).
// The nearest-centroid scan is a selection loop for tsad's adjoint (only the chosen centroid's
// distance is reversed), and its tangent leaves the scan's distances without tangents: the cost
// stays close to one primal evaluation.
//
// The other nesting, reverse over forward (adjoint of tsad's tangent code), gives the same G and H·1;
// the tests compare the two.
import { deriveSource, derive, evalSource, zerosRows } from '../tsad.js';
import type { KmeansArgs } from './io.js';

type KmeansBD = (
  centroids: number[][], centroidsd: number[][], centroidsb: number[][], centroidsbd: number[][],
  points: number[][], resultb: number,
) => void;

type KmeansDB = (
  centroids: number[][], centroidsb: number[][], centroidsd: number[][], centroidsdb: number[][],
  points: number[][], resultb: [number, number],
) => void;

/** tsad's adjoint of kmeansCost, as TypeScript (the first stage of forward over reverse). */
export function kmeansAdjointSource(): string {
  return deriveSource('kmeans/kmeansCost/reverse', () => ({ 'kmeans.ts': evalSource('kmeans') }), {
    head: 'kmeansCost',
    wrt: ['centroids'],
    modes: ['reverse'],
  });
}

/** tsad's tangent of kmeansCost, as TypeScript (the first stage of reverse over forward). */
export function kmeansTangentSource(): string {
  return deriveSource('kmeans/kmeansCost/tangent', () => ({ 'kmeans.ts': evalSource('kmeans') }), {
    head: 'kmeansCost',
    wrt: ['centroids'],
    modes: ['tangent'],
  });
}

/** The generated tangent of the generated adjoint (forward over reverse). */
export function kmeansForwardOverReverse(): KmeansBD {
  return derive('kmeans/kmeansCost_b/tangent', () => ({ 'kmeans_b.ts': kmeansAdjointSource() }), {
    head: 'kmeansCost_b',
    wrt: ['centroids'],
    of: ['centroidsb'],
    modes: ['tangent'],
  }).fn<KmeansBD>('kmeansCost_b_d', ['centroids', 'centroidsd', 'centroidsb', 'centroidsbd', 'points', 'resultb']);
}

function reverseOverForward(): KmeansDB {
  return derive('kmeans/kmeansCost_d/reverse', () => ({ 'kmeans_d.ts': kmeansTangentSource() }), {
    head: 'kmeansCost_d',
    wrt: ['centroids', 'centroidsd'],
    modes: ['reverse'],
  }).fn<KmeansDB>('kmeansCost_d_b', ['centroids', 'centroidsb', 'centroidsd', 'centroidsdb', 'points', 'resultb']);
}

/** Gradient and Hessian diagonal, both [k][d], from one call of the tangent of the adjoint. */
export function gradientAndHessianDiagonal(a: KmeansArgs): { gradient: number[][]; hessianDiagonal: number[][] } {
  const ones = a.centroids.map((r) => new Array<number>(r.length).fill(1));
  const gradient = zerosRows(a.centroids); // the adjoint accumulates into it
  const hessianDiagonal = zerosRows(a.centroids); // its tangent: H·1
  kmeansForwardOverReverse()(a.centroids, ones, gradient, hessianDiagonal, a.points, 1);
  return { gradient, hessianDiagonal };
}

/** The same pair from one adjoint sweep of the tangent code (reverse over forward). */
export function gradientAndHessianDiagonalReverseOverForward(a: KmeansArgs): { gradient: number[][]; hessianDiagonal: number[][] } {
  const ones = a.centroids.map((r) => new Array<number>(r.length).fill(1));
  const hessianDiagonal = zerosRows(a.centroids); // adjoint of centroids: H·1
  const gradient = zerosRows(a.centroids); // adjoint of the tangent: G
  reverseOverForward()(a.centroids, hessianDiagonal, ones, gradient, a.points, [0, 1]);
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
