// A generated module for timing the compiler (issue 21): `n` functions of about 22 lines, each with
// six loops over an array (sums, element-wise writes, a branch, a reversed loop, a nested loop), and a
// head that calls them all, fifty to a group function. Deterministic: the same n gives the same text.

function part(i: number): string {
  const c = (k: number) => (0.5 + ((i * 7 + k * 3) % 11) / 10).toFixed(1);
  return [
    `function part${i}(x: number[], w: number[], t: number): number {`,
    `  const n = x.length;`,
    `  const y: number[] = new Array(n).fill(0);`,
    `  let s = 0;`,
    `  for (let j = 0; j < n; j++) s += w[j] * x[j];`,
    `  for (let j = 0; j < n; j++) y[j] = Math.sin(x[j] * ${c(1)}) + s * t;`,
    `  let q = 0;`,
    `  for (let j = 0; j < n; j++) {`,
    `    if (y[j] > 0) q += y[j] * y[j];`,
    `    else q -= ${c(2)} * y[j];`,
    `  }`,
    `  for (let j = n - 1; j > 0; j--) y[j] = y[j] - ${c(3)} * y[j - 1];`,
    `  let m = 0;`,
    `  for (let j = 0; j < n; j++) m = Math.max(m, Math.abs(y[j]));`,
    `  let r = 0;`,
    `  for (let j = 0; j < n; j++) {`,
    `    for (let k = 0; k < 2; k++) r += Math.exp(-y[j] * y[j] * ${c(4)}) * w[(j + k) % n];`,
    `  }`,
    `  return s + q / (1 + m) + r * t;`,
    `}`,
    ``,
  ].join('\n');
}

/** the source text, and the name of its head (which sums groups of 50 parts: one huge body would exceed TypeScript's flow analysis) */
export function syntheticModule(n: number): { text: string; head: string } {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(part(i));
  const groups: string[] = [];
  const GROUP = 50;
  for (let g = 0; g * GROUP < n; g++) {
    const calls: string[] = [];
    for (let i = g * GROUP; i < Math.min(n, (g + 1) * GROUP); i++) calls.push(`  total += part${i}(x, w, t);`);
    groups.push([`function group${g}(x: number[], w: number[], t: number): number {`, '  let total = 0;', ...calls, '  return total;', '}', ''].join('\n'));
  }
  const sums = groups.map((_, g) => `  total += group${g}(x, w, t);`);
  const head = ['export function all(x: number[], w: number[], t: number): number {', '  let total = 0;', ...sums, '  return total;', '}', ''].join('\n');
  return { text: parts.join('\n') + '\n' + groups.join('\n') + '\n' + head, head: 'all' };
}
