// The playground (playground/), built as a static site and driven in a real Chromium (Debian's package,
// through playwright-core): it types code and sees the generated code, types a mistake and sees the
// located diagnostic, presses Check and reads a passing result, looks at the plot's pixels, and runs
// every example. Screenshots of each state go to test-artifacts/playground/.
// Without /usr/bin/chromium the browser part is skipped, saying so; under CI=true it fails instead.
// Also without a browser: every example passes `tsad --check`, and `tsad playground` serves the build.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticServer } from '../src/cli/playground.js';
import { buildPlayground } from '../playground/build.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const CI = process.env.CI === 'true';
const BUILD = join(ROOT, 'dist/playground');
const SHOTS = join(ROOT, 'test-artifacts/playground');
const CLI = join(ROOT, 'dist/src/cli/main.js');

/** the examples, by their titles in the dropdown, with the head each one defaults to */
const EXAMPLES: Record<string, { file: string; head: string }> = {
  Rosenbrock: { file: '1-rosenbrock.ts', head: 'rosenbrock' },
  GMM: { file: '2-gmm.ts', head: 'gmmObjective' },
  ODE: { file: '3-ode.ts', head: 'finalLoss' },
  MLP: { file: '4-mlp.ts', head: 'mlpLoss' },
  Particles: { file: '5-particles.ts', head: 'simulate' },
};

beforeAll(async () => {
  // the page is rebuilt from the sources every run (about a second): no separate build step
  await buildPlayground(BUILD);
  if (!existsSync(CLI)) spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: ROOT });
}, 60_000);

/** Runs the built CLI; resolves with its exit status and output. */
function tsad(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => res({ status: err ? Number(err.code ?? 1) : 0, stdout, stderr }));
  });
}

/** GET of a path below the server's root, sent as written (`..` included) */
function get(port: number, below: string): Promise<{ status: number; body: string }> {
  return new Promise((res, rej) => {
    request({ host: '127.0.0.1', port, path: `/${below}` }, (r) => {
      let body = '';
      r.setEncoding('utf8').on('data', (c: string) => (body += c));
      r.on('end', () => res({ status: r.statusCode ?? 0, body }));
    })
      .on('error', rej)
      .end();
  });
}

describe('playground without a browser', () => {
  it('every example passes tsad --check', async () => {
    const runs = await Promise.all(Object.values(EXAMPLES).map((e) => tsad(join('playground/examples', e.file), '--head', e.head, '--check')));
    for (const r of runs) expect(r.stdout + r.stderr).toMatch(/check passed/);
  }, 60_000);

  it('tsad playground serves the build on the port given, and nothing outside it', async () => {
    const child = spawn(process.execPath, [CLI, 'playground', '--port', '0'], { cwd: ROOT });
    try {
      const port = await new Promise<number>((res, rej) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (c: string) => {
          out += c;
          const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
          if (m) res(Number(m[1]));
        });
        child.on('exit', (code) => rej(new Error(`tsad playground exited ${code}: ${out}`)));
      });
      const page = await get(port, '');
      expect(page.status).toBe(200);
      expect(page.body).toMatch(/<title>tsad playground<\/title>/);
      expect((await get(port, 'worker.js')).status).toBe(200);
      expect((await get(port, '%2e%2e/%2e%2e/package.json')).status).toBe(404);
    } finally {
      child.kill();
    }
    const bad = await tsad('playground', '--port', 'x');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--port takes a port number/);
  }, 30_000);
});

it.runIf(!HAVE_CHROMIUM)(`needs Chromium at ${CHROMIUM} for the browser test`, (ctx) => {
  if (CI) throw new Error(`${CHROMIUM} is missing, and CI=true requires the browser test: install Debian's chromium package (.ci/run does: apt-get install chromium)`);
  console.warn(`playground browser test skipped: ${CHROMIUM} is missing (apt-get install chromium)`);
  ctx.skip();
});

describe.runIf(HAVE_CHROMIUM)('playground in Chromium', () => {
  let server: Server;
  let profile: string;
  let context: BrowserContext;
  let page: Page;
  /** uncaught errors and console errors of the page: none are expected */
  const errors: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = staticServer(BUILD);
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    // playwright refuses --user-data-dir among the arguments: a fresh, empty profile is given this way
    profile = mkdtempSync(join(tmpdir(), 'tsad-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      // without the background-networking flags Chromium keeps trying to reach the network
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1400, height: 1000 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console: ${m.text()}`);
    });
    await page.goto(`http://127.0.0.1:${port}/`);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    server?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  const outputText = () => page.locator('#output .cm-content').innerText();
  /** waits until the page has compiled `head` without errors */
  const compiled = (head: string) =>
    page.waitForFunction((h) => document.getElementById('status')?.dataset.state === 'ok' && (document.getElementById('head') as HTMLSelectElement).value === h, head, { timeout: 20_000 });
  /** replaces the editor's text, as typed in one go (keyboard.type would let the editor close brackets) */
  const setSource = async (text: string) => {
    await page.click('#editor .cm-content');
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(text);
  };
  const check = async () => {
    await page.click('#check');
    await page.waitForSelector('#check-result .verdict.pass, #check-result .verdict.fail', { timeout: 20_000 });
    return page.locator('#check-result').innerText();
  };

  it('loads the first example and shows its tangent, vector and adjoint code', async () => {
    await compiled('rosenbrock');
    expect(await page.locator('#example option').allInnerTexts()).toEqual(Object.keys(EXAMPLES));
    expect(await outputText()).toMatch(/export function rosenbrock_d\(x: number\[\], xd: number\[\]\): \[number, number\]/);
    await page.click('#tabs [data-mode="vector"]');
    expect(await outputText()).toMatch(/export function rosenbrock_dv\(/);
    await page.click('#tabs [data-mode="adjoint"]');
    expect(await outputText()).toMatch(/export function rosenbrock_b\(/);
    await shot('1-loaded');
  });

  const SOURCE = `export function energy(x: number[], k: number): number {
  let e = 0;
  for (let i = 0; i < x.length; i++) e += 0.5 * k * x[i] * x[i];
  return Math.log(1 + e);
}
`;

  it('typing code updates the generated code', async () => {
    await setSource(SOURCE);
    await compiled('energy');
    // the adjoint tab stays selected
    expect(await outputText()).toMatch(/export function energy_b\(x: number\[\], xb: number\[\], k: number, resultb: number\): number/);
    expect(await page.locator('#diagnostics').innerText()).toBe('none');
    await shot('2-typed');
  });

  it('a mistake is shown at its location, inline and in the list', async () => {
    // at the end of line 3, typed key by key
    await page.click('#editor .cm-content');
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    await page.keyboard.type(' e *= Math.random();');
    await page.waitForSelector('#status[data-state="errors"]', { timeout: 20_000 });
    const item = page.locator('#diagnostics li').first();
    expect(await item.locator('.at').innerText()).toMatch(/^input\.ts:3:\d+$/);
    expect(await item.innerText()).toMatch(/Math\.random\(\) is non-deterministic/);
    // underlined in the editor, marked in the gutter, and the old generated code dimmed
    expect(await page.locator('#editor .cm-lintRange-error').count()).toBeGreaterThan(0);
    expect(await page.locator('#editor .cm-lint-marker-error').count()).toBe(1);
    expect(await page.locator('#output.stale').count()).toBe(1);
    await shot('3-diagnostic');
  });

  it('Check passes, with the tape statistics', async () => {
    await setSource(SOURCE);
    await compiled('energy');
    expect(await page.locator('#editor .cm-lintRange-error').count()).toBe(0);
    const text = await check();
    expect(text).toMatch(/check passed/);
    expect(text).toMatch(/adjoint vs tangent \(dot product\)/);
    expect(text).toMatch(/tape peak\s+\d+ bytes/);
    // at a point given as JSON too
    await page.fill('#input', '{"x": [0.5, -1, 2], "k": 3}');
    const atInput = await check();
    expect(atInput).toMatch(/check passed/);
    expect(atInput).toMatch(/at x = \[0\.5, -1, 2\], k = 3/);
    await shot('4-check');
  });

  it('plots f and its directional derivative', async () => {
    await page.waitForFunction(() => /at x = \[0\.5, -1, 2\]/.test(document.getElementById('plot-caption')?.textContent ?? ''), undefined, { timeout: 20_000 });
    // both curves are drawn: pixels of the f line (blue) and of the d/dt line (red) on the canvas
    const colours = await page.evaluate(() => {
      const canvas = document.querySelector<HTMLCanvasElement>('#plot canvas');
      if (!canvas) return null;
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let blue = 0, red = 0;
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
        if (a < 128) continue;
        if (b > r + 80 && b > g + 40) blue++;
        if (r > b + 80 && r > g + 80) red++;
      }
      return { blue, red, width: canvas.width };
    });
    expect(colours).not.toBeNull();
    expect(colours!.width).toBeGreaterThan(300);
    expect(colours!.blue).toBeGreaterThan(200);
    expect(colours!.red).toBeGreaterThan(200);
    await page.locator('#plot-pane').screenshot({ path: join(SHOTS, '5-plot.png') });
  });

  it('every example compiles and passes Check in the browser', async () => {
    for (const [title, { head }] of Object.entries(EXAMPLES)) {
      await page.selectOption('#example', { label: title });
      await compiled(head);
      expect(await check(), title).toMatch(/check passed/);
    }
    await shot('6-particles');
    expect(errors).toEqual([]);
  }, 60_000);
});
