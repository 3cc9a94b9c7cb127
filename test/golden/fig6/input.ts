// Fig. 6 (ASSIGN-1) of Hascoët & Pascual, RR-7957: the single assignment  a(i) = x*b(j) + COS(a(i)).
// a, b, x are active. Fortran arrays become number[] (indices i and j passed as integers).
// Independents: a, b, x. Dependent: a (the array the function writes).
export function assign(a: number[], b: number[], x: number, i: number, j: number): void {
  a[i] = x * b[j] + Math.cos(a[i]);
}
