// Geometry helpers.

/**
 * Shoelace area of a polygon given as [x, y] pairs.
 * @param {[number, number][]} pts
 */
export function polygonArea(pts) {
  let area = 0;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
    area += (pts[j][0] + pts[i][0]) * (pts[j][1] - pts[i][1]);
  }
  return Math.abs(area / 2);
}

/**
 * Polygon perimeter over {x, y} points.
 * @param {{x: number, y: number}[]} pts
 */
export function perimeter(pts) {
  return pts.reduce((acc, p, i) => {
    const q = pts[(i + 1) % pts.length];
    return acc + Math.hypot(q.x - p.x, q.y - p.y);
  }, 0);
}

/**
 * Euclidean distance matrix.
 * @param {number[][]} points
 * @returns {number[][]}
 */
export function distanceMatrix(points) {
  return points.map((p) => points.map((q) => Math.sqrt(p.reduce((s, v, k) => s + (v - q[k]) ** 2, 0))));
}

/**
 * Centroid of a point cloud.
 * @param {number[][]} points
 * @returns {number[]}
 */
export function centroid(points) {
  const dim = points[0].length;
  const c = new Array(dim).fill(0);
  points.forEach((p) => p.forEach((v, k) => { c[k] += v / points.length; }));
  return c;
}

/**
 * Heron's formula.
 * @param {number} a
 * @param {number} b
 * @param {number} c
 */
export function heron(a, b, c) {
  const s = (a + b + c) / 2;
  return Math.sqrt(s * (s - a) * (s - b) * (s - c));
}

/**
 * Closest distance from a point to a polyline.
 * @param {{x: number, y: number}} p
 * @param {{x: number, y: number}[]} line
 */
export function pointToPolyline(p, line) {
  let best = Infinity;
  for (let i = 0; i + 1 < line.length; i++) {
    const a = line[i], b = line[i + 1];
    const dx = b.x - a.x, dy = b.y - a.y;
    const t = Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy)));
    const d = Math.hypot(a.x + t * dx - p.x, a.y + t * dy - p.y);
    best = Math.min(best, d);
  }
  return best;
}

/**
 * Procrustes-style sum of squared distances between two point sets after centering.
 * @param {number[][]} A
 * @param {number[][]} B
 */
export function centeredSSD(A, B) {
  const ca = centroid(A), cb = centroid(B);
  let s = 0;
  for (const [i, a] of A.entries()) {
    const b = B[i];
    for (let k = 0; k < a.length; k++) s += (a[k] - ca[k] - (b[k] - cb[k])) ** 2;
  }
  return s;
}
