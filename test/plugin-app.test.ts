// The example app (examples/plugin-app): a logistic regression fitted by gradient descent in the
// browser, with the adjoint the bundler plugin generates at build time (`./model.ts?tsad=loss`). Built
// with esbuild and the plugin; the bundle's size is reported and it holds no compiler; then it runs in
// a real Chromium (Debian's package, through playwright-core) and its loss must fall. A screenshot goes
// to test-artifacts/plugin-app/. Without /usr/bin/chromium the browser part is skipped, saying so;
// under CI=true it fails instead.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticServer } from '../src/cli/playground.js';
import tsadPlugin from '../src/plugin/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const APP = join(ROOT, 'examples/plugin-app');
const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const SHOTS = join(ROOT, 'test-artifacts/plugin-app');
let dir = '';
let bundle = '';

beforeAll(async () => {
  // a copy of the app (the plugin writes its declarations beside the sources), `tsad` installed as a link
  dir = mkdtempSync(join(tmpdir(), 'tsad-app-'));
  for (const f of ['model.ts', 'main.ts', 'index.html']) copyFileSync(join(APP, f), join(dir, f));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules/tsad'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  bundle = join(dir, 'main.js');
  await esbuild.build({ entryPoints: [join(dir, 'main.ts')], bundle: true, format: 'esm', platform: 'browser', minify: true, outfile: bundle, logLevel: 'silent', plugins: [tsadPlugin.esbuild()] });
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the example app built with the plugin', () => {
  it('is small and holds no compiler', () => {
    const code = readFileSync(bundle);
    console.log(`example app bundle: ${(code.length / 1024).toFixed(1)} kB minified, ${(gzipSync(code).length / 1024).toFixed(1)} kB gzipped`);
    expect(code.length).toBeLessThan(100_000);
    const text = code.toString();
    // markers of TypeScript's compiler and of tsad's
    for (const marker of ['createSourceFile', 'getTypeChecker', 'lowerProgram', 'DiagnosticBag']) expect(text).not.toContain(marker);
    expect(text).toMatch(/loss_bwd|pushF/);
  });

  it.runIf(!HAVE_CHROMIUM)(`needs Chromium at ${CHROMIUM} to fit the model in a browser`, (ctx) => {
    if (process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing, and CI=true requires the browser test (.ci/run installs Debian's chromium)`);
    console.warn(`example app browser test skipped: ${CHROMIUM} is missing`);
    ctx.skip();
  });

  it.runIf(HAVE_CHROMIUM)('fits its model in Chromium: the loss falls', async () => {
    const server: Server = staticServer(dir);
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const profile = mkdtempSync(join(tmpdir(), 'tsad-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`http://127.0.0.1:${port}/`);
      await page.waitForSelector('#result[data-done="true"]', { timeout: 30_000 });
      const r = JSON.parse((await page.textContent('#result')) ?? '{}') as { first: number; last: number; w: number[]; b: number };
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: join(SHOTS, 'fitted.png') });
      expect(errors).toEqual([]);
      // log 2 at w = 0, b = 0; the two clouds separate along both coordinates
      expect(r.first).toBeCloseTo(Math.log(2), 12);
      expect(r.last).toBeLessThan(0.6 * r.first);
      expect(r.w[0]).toBeGreaterThan(0.5);
      expect(r.w[1]).toBeGreaterThan(0);
    } finally {
      await context.close();
      server.close();
      rmSync(profile, { recursive: true, force: true });
    }
  }, 60_000);
});
