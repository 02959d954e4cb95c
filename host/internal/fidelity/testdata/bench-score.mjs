// Scores SVGs the way the bench's score.mjs does, with the bench's own metrics:
//   node bench-score.mjs RESVG_MODULES_DIR BENCH_DIR JOBS.json
// RESVG_MODULES_DIR holds node_modules/@resvg/resvg-js (make fidelity-tools installs it into
// bin/tools/resvg); BENCH_DIR is ../shared/bench, whose lib/metrics.mjs (luma, ssim,
// psnrMae) is imported as it is. JOBS.json is a list of {svg, rgba, width, height}: rgba
// is the input image as width x height straight RGBA bytes (decoded by the test, since the
// PNG reader the bench uses is not installed beside resvg). Each SVG is rendered as
// score.mjs's renderScored does it (resvg at the image's width over white, cropped or
// padded onto the image's canvas) and scored against the image flattened over white.
// Prints a JSON list of {ssim, psnr}.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [modules, bench, jobsFile] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), 'index.js'));
const { Resvg } = require('@resvg/resvg-js');
const { luma, ssim, psnrMae } = await import(pathToFileURL(path.join(path.resolve(bench), 'lib', 'metrics.mjs')).href);

// As lib/img.mjs's flatten: straight RGBA over white -> Float32 RGB.
function flatten(data, n) {
  const out = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) {
    const a = data[i * 4 + 3] / 255;
    for (let c = 0; c < 3; c++) out[i * 3 + c] = data[i * 4 + c] * a + 255 * (1 - a);
  }
  return out;
}

const results = [];
for (const job of JSON.parse(fs.readFileSync(jobsFile, 'utf8'))) {
  const W = job.width, H = job.height, n = W * H;
  const ref = flatten(new Uint8Array(fs.readFileSync(job.rgba)), n);
  const img = new Resvg(fs.readFileSync(job.svg), { fitTo: { mode: 'width', value: W }, background: '#ffffff', font: { loadSystemFonts: false } }).render();
  let px = new Uint8Array(img.pixels);
  if (img.width !== W || img.height !== H) {
    const c = new Uint8Array(n * 4).fill(255);
    for (let y = 0; y < Math.min(H, img.height); y++)
      c.set(px.subarray(y * img.width * 4, (y * img.width + Math.min(W, img.width)) * 4), y * W * 4);
    px = c;
  }
  const got = flatten(px, n);
  results.push({ ssim: ssim(luma(ref, n), luma(got, n), W, H), psnr: psnrMae(ref, got, n).psnr });
}
process.stdout.write(JSON.stringify(results));
