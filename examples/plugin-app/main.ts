// The example app: fits model.ts's logistic regression by gradient descent, in the browser, with the
// adjoint the bundler plugin generated at build time. It writes its progress into the page.
import { loss, loss_b } from './model.ts?tsad=loss&wrt=w,b';

/** two overlapping clouds of points, from a fixed-seed generator (the same data every run) */
function data(n: number): { xs: number[][]; y: number[] } {
  let seed = 12345;
  const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
  const xs: number[][] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const label = i % 2;
    xs.push([rand() + (label ? 1 : -1), rand() + (label ? 0.5 : -0.5)]);
    y.push(label);
  }
  return { xs, y };
}

export function fit(steps: number, rate: number): { first: number; last: number; w: number[]; b: number } {
  const { xs, y } = data(200);
  const w = [0, 0];
  let b = 0;
  const first = loss(w, b, xs, y, 0.01);
  for (let k = 0; k < steps; k++) {
    const wb = [0, 0];
    const bb = loss_b(w, wb, b, xs, y, 0.01, 1);
    for (let j = 0; j < w.length; j++) w[j] -= rate * wb[j];
    b -= rate * bb;
  }
  return { first, last: loss(w, b, xs, y, 0.01), w, b };
}

const out = document.getElementById('result');
if (out) {
  const r = fit(300, 0.5);
  out.textContent = JSON.stringify(r);
  out.dataset.done = 'true';
}
