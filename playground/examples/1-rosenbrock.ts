// Rosenbrock: the banana-shaped valley, in n dimensions (its minimum is at x = [1, 1, …])
export function rosenbrock(x: number[]): number {
  let s = 0;
  for (let i = 0; i + 1 < x.length; i++) {
    const a = x[i + 1] - x[i] * x[i];
    const b = 1 - x[i];
    s += 100 * a * a + b * b;
  }
  return s;
}
