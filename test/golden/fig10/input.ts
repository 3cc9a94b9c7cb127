// Fig. 10 (MERGE-1) of RR-7957: a basic block whose naive adjoint duplicates subexpressions.
//   res = (tau-w(i,j))*g(i,j)*(z(j)-2.0)/v(j) ; g(i,j) = res*v(j)
// Two-dimensional Fortran arrays become number[][]; res is a local (passive outside the block).
// Independents: tau, w, g, z, v. Dependent: g (written in place).
export function merge(tau: number, w: number[][], g: number[][], z: number[], v: number[], i: number, j: number): void {
  const res = ((tau - w[i][j]) * g[i][j] * (z[j] - 2.0)) / v[j];
  g[i][j] = res * v[j];
}
