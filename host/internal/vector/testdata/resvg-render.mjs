// Renders SVGs with resvg, the reference renderer of the fidelity tests:
//   node resvg-render.mjs MODULES_DIR JOBS.json
// MODULES_DIR holds node_modules/@resvg/resvg-js (make fidelity-tools installs it into
// bin/tools/resvg); JOBS.json is a list of {svg, png, width}: each SVG is rendered at
// width pixels on a white background and written as a PNG.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [modules, jobsFile] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), 'index.js'));
const { Resvg } = require('@resvg/resvg-js');
for (const job of JSON.parse(fs.readFileSync(jobsFile, 'utf8'))) {
  const svg = fs.readFileSync(job.svg);
  const r = new Resvg(svg, { fitTo: { mode: 'width', value: job.width }, background: 'white', font: { loadSystemFonts: false } });
  fs.writeFileSync(job.png, r.render().asPng());
}
