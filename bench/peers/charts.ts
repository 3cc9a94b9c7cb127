// Peers benchmark: SVG charts from PeersResults, Vega-Lite specs compiled to Vega and rendered to SVG
// in Node (vega's headless View with renderer 'none' + toSVG(); no browser, no canvas, no network).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PeerName } from './protocol.js';
import { median, primalOf } from './report.js';
import type { PeersResults } from './run.js';

export type Spec = Record<string, unknown>;

const PEER_ORDER: PeerName[] = ['tsad', 'hand-written', 'fd-central', 'tfjs-cpu', 'tfjs-wasm', 'jax-js'];
const COLORS = ['#d62728', '#2ca02c', '#7f7f7f', '#ff7f0e', '#9467bd', '#1f77b4'];

/** One point of a line chart: `peer` is the series (a peer, or any other series name). */
export interface Row {
  eval: string;
  size: string;
  order: number;
  peer: string;
  value: number;
  note: string;
}

function rows(r: PeersResults, value: (w: PeersResults['workloads'][number], p: PeerName) => number | undefined, peers = PEER_ORDER): Row[] {
  const out: Row[] = [];
  r.workloads.forEach((w, i) => {
    for (const p of peers) {
      const v = value(w, p);
      if (v === undefined || !Number.isFinite(v)) continue;
      const pr = w.peers.find((x) => x.peer === p);
      const note = (pr?.gradScale ?? 1) > 1 ? 'extrapolated' : pr?.variants.grad?.single ? 'single call' : 'measured';
      out.push({ eval: w.eval, size: w.label, order: i, peer: p, value: v, note });
    }
  });
  return out;
}

/** Series (colours), facet order and point shapes of a chart; the peers' by default. */
export interface ChartStyle {
  series: string[];
  colors: string[];
  facets: string[];
  /** point shape by `note` (measured / extrapolated / single call); off: plain points */
  shapes: boolean;
}

const PEERS_STYLE: ChartStyle = { series: PEER_ORDER, colors: COLORS, facets: ['lse', 'llsq', 'gmm', 'kmeans'], shapes: true };

/** Lines over the sizes of each eval (one facet per eval, log y), a series per `peer`. */
export function facetLines(title: string, data: Row[], yTitle: string, style: ChartStyle = PEERS_STYLE): Spec {
  const color = { field: 'peer', type: 'nominal', scale: { domain: style.series, range: style.colors }, legend: { title: null, orient: 'bottom' } };
  const tooltip = [{ field: 'peer' }, { field: 'size' }, { field: 'value', format: '.4g' }, { field: 'note' }];
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    data: { values: data },
    facet: { field: 'eval', type: 'nominal', title: null, sort: style.facets },
    columns: style.facets.length > 4 ? 3 : 2,
    spec: {
      width: 300,
      height: 220,
      encoding: {
        x: { field: 'size', type: 'ordinal', sort: { field: 'order' }, title: null, axis: { labelAngle: -30 } },
        y: { field: 'value', type: 'quantitative', scale: { type: 'log' }, title: yTitle },
        color,
      },
      layer: [
        { mark: { type: 'line', strokeWidth: 1.5 } },
        {
          mark: { type: 'point', filled: true, size: 60 },
          encoding: style.shapes
            ? {
                shape: { field: 'note', type: 'nominal', scale: { domain: ['measured', 'extrapolated', 'single call'], range: ['circle', 'triangle-up', 'square'] }, legend: { title: null, orient: 'bottom' } },
                tooltip,
              }
            : { tooltip },
        },
      ],
    },
    resolve: { scale: { x: 'independent', y: 'independent' } },
    config: { font: 'sans-serif' },
  };
}

/** facetLines plus a dashed rule at `ruleAt` (ratio charts). */
export function facetRatios(title: string, data: Row[], yTitle: string, ruleAt: number, style: ChartStyle = PEERS_STYLE): Spec {
  const spec = facetLines(title, data, yTitle, style);
  const inner = spec['spec'] as { layer: Spec[] };
  inner.layer.push({ mark: { type: 'rule', color: 'black', strokeDash: [4, 2] }, encoding: { y: { datum: ruleAt }, x: null, color: null } });
  return spec;
}

/** A Vega-Lite spec rendered to SVG. */
export async function render(spec: Spec): Promise<string> {
  const vl = (await import('vega-lite')) as unknown as { compile(s: unknown): { spec: unknown } };
  const vega = (await import('vega')) as unknown as {
    parse(s: unknown): unknown;
    View: new (runtime: unknown, opts: { renderer: string }) => { toSVG(): Promise<string>; finalize(): void };
  };
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

/** Renders each (file name, spec) to an SVG file in `dir`; returns their paths. */
export async function writeSvgs(dir: string, charts: [string, Spec][]): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const out: string[] = [];
  for (const [name, spec] of charts) {
    const path = join(dir, name);
    writeFileSync(path, await render(spec));
    out.push(path);
  }
  return out;
}

/** Writes the charts into `dir`; returns their paths. */
export async function writeCharts(r: PeersResults, dir: string): Promise<string[]> {
  const when = `${r.mode}, ${r.date.slice(0, 10)}, ${r.machine.cpu} ×${r.machine.cores}`;
  const tsadOf = (w: PeersResults['workloads'][number]) => median(w, 'tsad');
  const charts: [string, Spec][] = [
    ['peers-derivative-time.svg', facetLines(`Value + derivative per call, median (${when})`, rows(r, (w, p) => median(w, p)), 'ms per call (log)')],
    [
      'peers-primal-time.svg',
      facetLines(
        `Primal per call, median (${when}); tsad row = tsc-compiled primal`,
        rows(r, (w, p) => median(w, p, 'primal'), ['tsad', 'tfjs-cpu', 'tfjs-wasm', 'jax-js']),
        'ms per call (log)',
      ),
    ],
    [
      'peers-ratio-vs-tsad.svg',
      facetRatios(
        `Peer time / tsad time, derivative (medians; above 1: slower than tsad) (${when})`,
        rows(r, (w, p) => {
          const t = tsadOf(w), m = median(w, p);
          return p === 'tsad' || t === undefined || m === undefined ? undefined : m / t;
        }),
        'peer time / tsad time (log)',
        1,
      ),
    ],
    [
      'peers-derivative-over-primal.svg',
      facetRatios(
        `Derivative time / primal time (tsc primal; libraries: own primal) (${when})`,
        // finite differences left out: their ratio is 1 + 2n by construction
        rows(
          r,
          (w, p) => {
            const m = median(w, p), pr = primalOf(w, p);
            return m === undefined || pr === undefined ? undefined : m / pr;
          },
          PEER_ORDER.filter((p) => p !== 'fd-central'),
        ),
        'derivative / primal (log)',
        1,
      ),
    ],
  ];
  return writeSvgs(dir, charts);
}
