// Benchmark workload: an arrowhead objective (compiler input; ARWHEAD of CUTEst). Its Hessian is the
// diagonal plus a full last row and column: star colouring takes two colours, column colouring n.
export function arrowhead(x: number[]): number {
  const n = x.length;
  let s = 0;
  for (let i = 0; i + 1 < n; i++) {
    const q = x[i] * x[i] + x[n - 1] * x[n - 1];
    s += q * q - 4 * x[i] + 3;
  }
  return s;
}
