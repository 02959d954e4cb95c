#!/usr/bin/env bash
# Compares the potrace engine with the potrace 1.16 CLI on the bench corpus, render
# against render, for the defaults and for the parameter variants of issue 4, and scores
# both against the input images.
#
#   plugins/potrace/bench/compare.sh OUT_DIR
#
# Needs the bench set up (shared/bench/setup.sh: node modules and the potrace CLI) beside
# the repository, or TRACECRAFT_BENCH pointing at it. For each variant it writes
#   OUT_DIR/pbm/<category>/<name>.pbm      the bitmap potrace gets (bench's lib/refs.mjs)
#   OUT_DIR/potrace-<variant>/...svg        potrace --svg <flags>
#   OUT_DIR/engine-<variant>/...svg         the engine (go test -run TestTraceCorpus)
#   OUT_DIR/results/compare-<variant>.*     bench.sh compare, engine vs potrace
#   OUT_DIR/results/<set>.csv|json          bench.sh score of both default sets
#   OUT_DIR/summary.md                      the tables and the verdict on each target
# and exits 1 when a target fails: per category median SSIM >= 0.995, every image
# >= 0.98, median segments within 5 % of potrace's; lineart SSIM against the input no
# lower than potrace's minus 0.002.
set -euo pipefail
out=${1:?usage: compare.sh OUT_DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)
bench=${TRACECRAFT_BENCH:-$(cd "$repo/../shared/bench" 2>/dev/null && pwd || true)}
[ -x "$bench/bench.sh" ] || { echo "no bench: set TRACECRAFT_BENCH to shared/bench" >&2; exit 2; }
command -v potrace >/dev/null || { echo "no potrace CLI: run $bench/setup.sh" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
corpus=$bench/corpus

# variant name, potrace flags, engine parameters
variants=(
  "default||{}"
  "turnpolicy-black|-z black|{\"turnPolicy\":\"black\"}"
  "alphamax-0|-a 0|{\"alphaMax\":0}"
  "optcurve-false|-n|{\"optCurve\":false}"
  "turdsize-50|-t 50|{\"turdSize\":50}"
)

echo "PBMs of $corpus" >&2
node --input-type=module -e "
import fs from 'node:fs'; import path from 'node:path';
const { readPng } = await import('$bench/lib/img.mjs');
const { toPbm } = await import('$bench/lib/refs.mjs');
for (const cat of fs.readdirSync('$corpus')) {
  const d = path.join('$corpus', cat); if (!fs.statSync(d).isDirectory()) continue;
  for (const f of fs.readdirSync(d).filter(f => f.endsWith('.png'))) {
    fs.mkdirSync(path.join('$out/pbm', cat), { recursive: true });
    fs.writeFileSync(path.join('$out/pbm', cat, f.replace(/\.png\$/, '.pbm')), toPbm(readPng(path.join(d, f))));
  }
}"

for v in "${variants[@]}"; do
  IFS='|' read -r name flags params <<<"$v"
  echo "variant $name: potrace $flags / engine $params" >&2
  rm -rf "$out/potrace-$name" "$out/engine-$name"
  for pbm in "$out"/pbm/*/*.pbm; do
    cat=$(basename "$(dirname "$pbm")")
    mkdir -p "$out/potrace-$name/$cat"
    # shellcheck disable=SC2086 # flags are words
    potrace --svg $flags -o "$out/potrace-$name/$cat/$(basename "$pbm" .pbm).svg" "$pbm"
  done
  (cd "$repo" && TRACECRAFT_CORPUS=$corpus TRACECRAFT_SVG_OUT=$out/engine-$name TRACECRAFT_PARAMS=$params \
    go test ./plugins/potrace/engine -run '^TestTraceCorpus$' -count=1 >/dev/null)
  "$bench/bench.sh" compare --corpus "$corpus" --a "$out/engine-$name" --b "$out/potrace-$name" \
    --results "$out/results" --name "$name" >/dev/null
done
"$bench/bench.sh" score --corpus "$corpus" --svgs "$out/potrace-default" --engine potrace-cli --results "$out/results" >/dev/null
"$bench/bench.sh" score --corpus "$corpus" --svgs "$out/engine-default" --engine potrace-engine \
  --timings "$out/engine-default/timings.json" --results "$out/results" >/dev/null

node --input-type=module -e "
import fs from 'node:fs';
const out = '$out', names = process.argv.slice(1);
const lines = ['# potrace engine vs potrace 1.16 CLI', '',
  'Render against render (bench.sh compare, A = engine, B = potrace CLI on the same PBM), medians per category.', '',
  '| variant | category | n | fail | SSIM med | SSIM min | segments A | segments B | segments A/B (median of ratios) | bytes A/B |',
  '|---|---|---|---|---|---|---|---|---|---|'];
const problems = [];
for (const n of names) {
  const s = JSON.parse(fs.readFileSync(out + '/results/compare-' + n + '.json')).summary;
  for (const [cat, r] of Object.entries(s)) {
    lines.push('| ' + [n, cat, r.n, r.fail, r.ssim.toFixed(4), r.ssimMin.toFixed(4), r.segmentsA, r.segmentsB, r.segmentsRatio.toFixed(3), r.bytesRatio.toFixed(3)].join(' | ') + ' |');
    if (cat === 'all') continue;
    if (r.ssim < 0.995) problems.push(n + ' ' + cat + ': median SSIM ' + r.ssim + ' < 0.995');
    if (r.ssimMin < 0.98) problems.push(n + ' ' + cat + ': an image has SSIM ' + r.ssimMin + ' < 0.98');
    const ratio = r.segmentsB ? r.segmentsA / r.segmentsB : 1;
    if (Math.abs(ratio - 1) > 0.05 || Math.abs(r.segmentsRatio - 1) > 0.05)
      problems.push(n + ' ' + cat + ': segments ' + r.segmentsA + ' vs ' + r.segmentsB + ' (median ratio ' + r.segmentsRatio + ')');
  }
}
lines.push('', 'Against the input (bench.sh score), lineart medians:', '', '| set | SSIM med | PSNR med | segments med |', '|---|---|---|---|');
const la = {};
for (const name of ['potrace-cli', 'potrace-engine']) {
  la[name] = JSON.parse(fs.readFileSync(out + '/results/' + name + '.json')).summary.lineart;
  lines.push('| ' + [name, la[name].ssim.toFixed(4), la[name].psnr.toFixed(2), la[name].segments].join(' | ') + ' |');
}
if (la['potrace-engine'].ssim < la['potrace-cli'].ssim - 0.002) problems.push('lineart SSIM against the input below potrace - 0.002');
lines.push('', problems.length ? 'FAIL:\n' + problems.map(p => '- ' + p).join('\n') : 'PASS: every target holds.');
fs.writeFileSync(out + '/summary.md', lines.join('\n') + '\n');
console.log(lines.join('\n'));
process.exit(problems.length ? 1 : 0);
" "${variants[@]%%|*}"
