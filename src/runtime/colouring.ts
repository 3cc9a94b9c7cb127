// Graph colouring for compressed Jacobians and Hessians (issue 18, unstructured sparsity). A sparsity
// pattern says which entries of an m × n matrix may be non-zero; a colouring of its columns groups
// columns that one tangent direction can carry together, so that the matrix comes out of one sweep per
// colour instead of one per column, and every entry can be read back from the compressed product B = M·S
// (S: one seed column per colour, 1 on the columns of that colour).
//
// - Jacobians, distance-1 colouring of the column intersection graph (Curtis–Powell–Reid, greedy): two
//   columns sharing a row get different colours, so B[i][colour(j)] is J[i][j] alone.
// - Hessians, star colouring of the adjacency graph (Gebremedhin, Manne, Pothen, "What color is your
//   Jacobian?", SIAM Review 2005, Algorithm 4.1): a proper colouring in which every path on four
//   vertices uses at least three colours. Symmetry lets each off-diagonal pair be read from whichever of
//   its two rows has no other neighbour of the other's colour; far fewer colours than distance-1
//   colouring of the Hessian's columns (an arrowhead: 2 instead of n).
//
// Pure functions of the pattern: no derivative code here (src/api/sparse.ts runs the sweeps).

/** an m × n sparsity pattern in compressed rows: the columns of row i are colIdx[rowPtr[i] … rowPtr[i+1]), increasing */
export interface SparsityPattern {
  m: number;
  n: number;
  rowPtr: Int32Array;
  colIdx: Int32Array;
}

/** a pattern from per-row column lists (each sorted increasing and without repeats) */
export function patternFromRows(m: number, n: number, rows: readonly (readonly number[])[]): SparsityPattern {
  const rowPtr = new Int32Array(m + 1);
  for (let i = 0; i < m; i++) rowPtr[i + 1] = rowPtr[i] + rows[i].length;
  const colIdx = new Int32Array(rowPtr[m]);
  for (let i = 0; i < m; i++) colIdx.set(rows[i], rowPtr[i]);
  return { m, n, rowPtr, colIdx };
}

/** the rows of a pattern as column lists */
export function patternRows(p: SparsityPattern): number[][] {
  return Array.from({ length: p.m }, (_, i) => Array.from(p.colIdx.subarray(p.rowPtr[i], p.rowPtr[i + 1])));
}

/** the union of two patterns of one shape (a pattern detected again joins the old one: see src/api/sparse.ts) */
export function patternUnion(a: SparsityPattern, b: SparsityPattern): SparsityPattern {
  const rows = patternRows(a).map((r, i) => [...new Set([...r, ...b.colIdx.subarray(b.rowPtr[i], b.rowPtr[i + 1])])].sort((x, y) => x - y));
  return patternFromRows(a.m, a.n, rows);
}

/** the pattern with its transpose added (a Hessian's: symmetric by nature, made so whatever detection saw) */
export function symmetricPattern(p: SparsityPattern): SparsityPattern {
  const rows: Set<number>[] = Array.from({ length: p.n }, () => new Set());
  for (let i = 0; i < p.m; i++)
    for (let e = p.rowPtr[i]; e < p.rowPtr[i + 1]; e++) {
      rows[i].add(p.colIdx[e]);
      rows[p.colIdx[e]].add(i);
    }
  return patternFromRows(p.n, p.n, rows.map((s) => [...s].sort((x, y) => x - y)));
}

/** the columns' rows (the transpose, compressed) */
function columnsOf(p: SparsityPattern): { colPtr: Int32Array; rowIdx: Int32Array } {
  const colPtr = new Int32Array(p.n + 1);
  for (let e = 0; e < p.colIdx.length; e++) colPtr[p.colIdx[e] + 1]++;
  for (let j = 0; j < p.n; j++) colPtr[j + 1] += colPtr[j];
  const fill = colPtr.slice(0, p.n);
  const rowIdx = new Int32Array(p.colIdx.length);
  for (let i = 0; i < p.m; i++) for (let e = p.rowPtr[i]; e < p.rowPtr[i + 1]; e++) rowIdx[fill[p.colIdx[e]]++] = i;
  return { colPtr, rowIdx };
}

export interface Colouring {
  /** colour of each column, 0 … count−1 */
  colour: Int32Array;
  count: number;
}

/**
 * Distance-1 colouring of the column intersection graph (columns sharing a row differ), greedy: the
 * smallest colour no column sharing a row with this one has (GMP 2005, Algorithm 3.2, "partial
 * distance-2 colouring" of the bipartite graph). Tried in the natural order (CPR's) and largest first
 * (by the number of entries in the column's rows); the fewer colours win. O(Σ_rows nnz(row)²).
 */
export function columnColouring(p: SparsityPattern): Colouring {
  const { colPtr, rowIdx } = columnsOf(p);
  const natural = Int32Array.from({ length: p.n }, (_, j) => j);
  const weight = new Float64Array(p.n);
  for (let j = 0; j < p.n; j++) for (let e = colPtr[j]; e < colPtr[j + 1]; e++) weight[j] += p.rowPtr[rowIdx[e] + 1] - p.rowPtr[rowIdx[e]];
  const largestFirst = Int32Array.from(natural).sort((a, b) => weight[b] - weight[a] || a - b);
  const greedy = (order: Int32Array): Colouring => {
    const colour = new Int32Array(p.n).fill(-1);
    const forbidden = new Int32Array(p.n + 1).fill(-1);
    let count = 0;
    for (const j of order) {
      for (let e = colPtr[j]; e < colPtr[j + 1]; e++) {
        const i = rowIdx[e];
        for (let f = p.rowPtr[i]; f < p.rowPtr[i + 1]; f++) {
          const c = colour[p.colIdx[f]];
          if (c >= 0) forbidden[c] = j;
        }
      }
      let c = 0;
      while (forbidden[c] === j) c++;
      colour[j] = c;
      if (c + 1 > count) count = c + 1;
    }
    return { colour, count };
  };
  const a = greedy(natural), b = greedy(largestFirst);
  return b.count < a.count ? b : a;
}

/**
 * Star colouring of a symmetric pattern's adjacency graph (vertices: the columns; edges: the
 * off-diagonal entries), GMP 2005 Algorithm 4.1, vertices largest degree first (a hub coloured first
 * leaves its spokes one colour; coloured last it would see them all at distance two). Colouring v, the
 * algorithm forbids (a) the colours of v's coloured neighbours w, (b) for an uncoloured neighbour w the
 * colours of w's coloured neighbours (so no vertex ever has two coloured neighbours of one colour), and
 * (c) for a coloured neighbour w, the colour of each coloured x ∈ N(w) having another neighbour of w's
 * colour (else v–w–x–y would be a two-coloured path). (b) and (c) are kept up to date as vertices are
 * coloured (per vertex: its neighbours' colours with counts; per coloured w: the set (c) forbids), so that
 * a hub's spokes do not each walk the hub's whole neighbourhood: O(Σ degree · colours) instead of O(Σ d³).
 */
export function starColouring(p: SparsityPattern): Colouring {
  const n = p.n;
  // neighbours: the off-diagonal entries of each row
  const deg = new Int32Array(n);
  for (let i = 0; i < n; i++) for (let e = p.rowPtr[i]; e < p.rowPtr[i + 1]; e++) if (p.colIdx[e] !== i) deg[i]++;
  const order = Int32Array.from({ length: n }, (_, j) => j).sort((a, b) => deg[b] - deg[a] || a - b);
  const colour = new Int32Array(n).fill(-1);
  const forbidden = new Int32Array(n + 1).fill(-1);
  // per vertex: colour → how many coloured neighbours have it, and the first of them
  const counts: Map<number, number>[] = Array.from({ length: n }, () => new Map());
  const firsts: Map<number, number>[] = Array.from({ length: n }, () => new Map());
  // per coloured w: colours of coloured x ∈ N(w) with two or more neighbours of colour(w)
  const through: Set<number>[] = Array.from({ length: n }, () => new Set());
  let count = 0;
  for (const v of order) {
    for (let e = p.rowPtr[v]; e < p.rowPtr[v + 1]; e++) {
      const w = p.colIdx[e];
      if (w === v) continue;
      if (colour[w] >= 0) {
        forbidden[colour[w]] = v;
        for (const c of through[w]) forbidden[c] = v;
      } else for (const c of counts[w].keys()) forbidden[c] = v;
    }
    let c = 0;
    while (forbidden[c] === v) c++;
    colour[v] = c;
    if (c + 1 > count) count = c + 1;
    for (let e = p.rowPtr[v]; e < p.rowPtr[v + 1]; e++) {
      const x = p.colIdx[e];
      if (x === v) continue;
      const k = (counts[x].get(c) ?? 0) + 1;
      counts[x].set(c, k);
      if (k === 1) firsts[x].set(c, v);
      else if (colour[x] >= 0) {
        // x now has two (or more) neighbours of colour c: a path through x and one of them must not end in colour(x)
        if (k === 2) through[firsts[x].get(c)!].add(colour[x]);
        through[v].add(colour[x]);
      }
    }
  }
  return { colour, count };
}

/** does every pair of columns sharing a row have different colours? */
export function isColumnColouring(p: SparsityPattern, c: Colouring): boolean {
  for (let i = 0; i < p.m; i++) {
    const seen = new Set<number>();
    for (let e = p.rowPtr[i]; e < p.rowPtr[i + 1]; e++) {
      const k = c.colour[p.colIdx[e]];
      if (k < 0 || k >= c.count || seen.has(k)) return false;
      seen.add(k);
    }
  }
  return true;
}

/**
 * Is `c` a star colouring of the symmetric pattern `p`: proper (neighbours differ), and every path on
 * four vertices a–b–c–d using three colours or more? Exhaustive over the paths (tests, small patterns).
 */
export function isStarColouring(p: SparsityPattern, c: Colouring): boolean {
  const nb = (v: number) => Array.from(p.colIdx.subarray(p.rowPtr[v], p.rowPtr[v + 1])).filter((w) => w !== v);
  const col = c.colour;
  for (let a = 0; a < p.n; a++)
    for (const b of nb(a)) {
      if (col[a] === col[b]) return false;
      for (const cc of nb(b)) {
        if (cc === a) continue;
        for (const d of nb(cc)) if (d !== a && d !== b && col[a] === col[cc] && col[b] === col[d]) return false;
      }
    }
  return true;
}

/**
 * Where each entry of the pattern is read from the compressed product B (m × colours, row-major with
 * stride `stride`): entry e of row i, column j, at B[i·stride + colour(j)]. For a star colouring of a
 * symmetric pattern, an off-diagonal entry whose row holds another neighbour of colour(j) is read from
 * row j instead, at colour(i) (the star property guarantees row j has no other neighbour of colour(i)).
 */
export function recoveryIndex(p: SparsityPattern, c: Colouring, stride: number, symmetric: boolean): Int32Array {
  const at = new Int32Array(p.colIdx.length);
  const tally = new Int32Array(c.count);
  for (let i = 0; i < p.m; i++) {
    if (symmetric) for (let e = p.rowPtr[i]; e < p.rowPtr[i + 1]; e++) if (p.colIdx[e] !== i) tally[c.colour[p.colIdx[e]]]++;
    for (let e = p.rowPtr[i]; e < p.rowPtr[i + 1]; e++) {
      const j = p.colIdx[e];
      at[e] = symmetric && j !== i && tally[c.colour[j]] > 1 ? j * stride + c.colour[i] : i * stride + c.colour[j];
    }
    if (symmetric) for (let e = p.rowPtr[i]; e < p.rowPtr[i + 1]; e++) tally[c.colour[p.colIdx[e]]] = 0;
  }
  return at;
}
