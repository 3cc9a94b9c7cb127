// kmeans: sum over points of the squared distance to the nearest centroid.
//   cost = kmeansCost(centroids, points)
//   dir  = G / H element-wise, where G = d cost / d centroids (gradient, reverse mode) and
//          H = the diagonal of the Hessian d^2 cost / d centroids^2 (the Hessian is diagonal;
//          forward-over-reverse with one all-ones tangent gives H·1 = its diagonal).
//          Both derivatives of kmeansCost with respect to `centroids`; points are passive.
//          The min is a strict `<` scan, so ties go to the lowest index (the eval's rule).

export function sqDist(a: number[], b: number[]): number {
  let s = 0;
  for (let u = 0; u < a.length; u++) {
    const t = a[u] - b[u];
    s += t * t;
  }
  return s;
}

export function kmeansCost(centroids: number[][], points: number[][]): number {
  const n = points.length;
  const k = centroids.length;
  let cost = 0;
  for (let i = 0; i < n; i++) {
    let best = sqDist(points[i], centroids[0]);
    for (let j = 1; j < k; j++) {
      const dist = sqDist(points[i], centroids[j]);
      if (dist < best) best = dist;
    }
    cost += best;
  }
  return cost;
}
