#!/usr/bin/env bash
# Speed and memory of the potrace engine against the potrace 1.16 CLI.
#
#   plugins/potrace/bench/speed.sh OUT_DIR
#
# Time: the engine's Go benchmark per lineart image (BenchmarkTrace_Lineart: threshold +
# trace + SVG, in process) against the CLI's whole process on the same bitmap (hyperfine,
# `potrace --svg` on the bench's PBM), and gotrace, this package's command-line twin,
# as a whole process too. Memory: peak RSS (/usr/bin/time -v) on a 16 MP lineart image,
# the trumpet upscaled 2.85x (bilinear on luma): potrace and gotrace on its PBM, and
# gotrace on its PNG (which holds the decoded image as the engine receives it).
# Writes OUT_DIR/speed.md and prints it. Needs the bench beside the repository (or
# TRACECRAFT_BENCH), hyperfine and GNU time.
set -euo pipefail
out=${1:?usage: speed.sh OUT_DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)
bench=${TRACECRAFT_BENCH:-$(cd "$repo/../shared/bench" 2>/dev/null && pwd || true)}
[ -x "$bench/bench.sh" ] || { echo "no bench: set TRACECRAFT_BENCH to shared/bench" >&2; exit 2; }
for c in potrace hyperfine /usr/bin/time; do command -v "$c" >/dev/null || { echo "missing $c" >&2; exit 2; }; done
mkdir -p "$out"
out=$(cd "$out" && pwd)
corpus=$bench/corpus
runs=${RUNS:-30}

(cd "$repo" && go build -o "$out/gotrace" ./plugins/potrace/bench/gotrace)
node --input-type=module -e "
import fs from 'node:fs'; import path from 'node:path';
const { readPng, writePng, flatten } = await import('$bench/lib/img.mjs');
const { toPbm } = await import('$bench/lib/refs.mjs');
fs.mkdirSync('$out/pbm', { recursive: true });
for (const f of fs.readdirSync('$corpus/lineart').filter(f => f.endsWith('.png')))
  fs.writeFileSync(path.join('$out/pbm', f.replace(/\.png\$/, '.pbm')), toPbm(readPng(path.join('$corpus/lineart', f))));
// 16 MP: the trumpet's luma over white, upscaled bilinearly, as an opaque gray image.
const im = readPng('$corpus/lineart/openclipart-trumpet.png'), rgb = flatten(im), w = im.width, h = im.height, s = 2.85;
const W = Math.round(w * s), H = Math.round(h * s), lum = new Float64Array(w * h), d = new Uint8Array(W * H * 4);
for (let i = 0; i < w * h; i++) lum[i] = 0.299 * rgb[3 * i] + 0.587 * rgb[3 * i + 1] + 0.114 * rgb[3 * i + 2];
const at = (x, y) => lum[Math.min(Math.max(y, 0), h - 1) * w + Math.min(Math.max(x, 0), w - 1)];
for (let Y = 0; Y < H; Y++) {
  const fy = (Y + 0.5) / s - 0.5, y0 = Math.floor(fy), ty = fy - y0;
  for (let X = 0; X < W; X++) {
    const fx = (X + 0.5) / s - 0.5, x0 = Math.floor(fx), tx = fx - x0;
    const v = Math.round((at(x0, y0) * (1 - tx) + at(x0 + 1, y0) * tx) * (1 - ty) + (at(x0, y0 + 1) * (1 - tx) + at(x0 + 1, y0 + 1) * tx) * ty);
    const o = 4 * (Y * W + X); d[o] = d[o + 1] = d[o + 2] = v; d[o + 3] = 255;
  }
}
const big = { width: W, height: H, data: d };
writePng('$out/trumpet16.png', big); fs.writeFileSync('$out/trumpet16.pbm', toPbm(big));"

echo "go benchmark" >&2
(cd "$repo" && TRACECRAFT_CORPUS=$corpus go test ./plugins/potrace/engine -run '^$' -bench 'Trace_Lineart' \
  -benchtime "${runs}x" -count 1) >"$out/gobench.txt"

{
  echo "### potrace engine vs potrace 1.16 CLI: lineart, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| image | engine Go benchmark ms | potrace CLI ms (median) | ratio | gotrace process ms (median) |"
  echo "|---|---|---|---|---|"
  for pbm in "$out"/pbm/*.pbm; do
    name=$(basename "$pbm" .pbm)
    hyperfine -N --warmup 3 --runs "$runs" --export-json "$out/h.json" \
      "potrace --svg -o $out/p.svg $pbm" "$out/gotrace -o $out/g.svg $pbm" >/dev/null 2>&1
    read -r cli gp < <(node -e "const r=require('$out/h.json').results;console.log(r[0].median*1e3,r[1].median*1e3)")
    ns=$(awk -v n="$name" '$1 ~ "/"n"-[0-9]+$" {print $3}' "$out/gobench.txt")
    node -e "const g=$ns/1e6,c=$cli;console.log('| $name | '+g.toFixed(1)+' | '+c.toFixed(1)+' | '+(g/c).toFixed(2)+' | '+($gp).toFixed(1)+' |')"
  done
  echo
  rss() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident/ {printf "%.1f", $2/1024}'; }
  p=$(rss potrace --svg -o "$out/p16.svg" "$out/trumpet16.pbm")
  g=$(rss "$out/gotrace" -o "$out/g16.svg" "$out/trumpet16.pbm")
  n=$(rss "$out/gotrace" -o "$out/n16.svg" "$out/trumpet16.png")
  echo "### Peak memory, 16 MP lineart ($(head -c 20 "$out/trumpet16.pbm" | sed -n 2p | tr ' ' x) trumpet, upscaled)"
  echo
  echo "| process | peak RSS MB | ratio to potrace |"
  echo "|---|---|---|"
  echo "| potrace --svg (PBM) | $p | 1.00 |"
  node -e "console.log('| gotrace (PBM: read, trace, SVG) | $g | '+($g/$p).toFixed(2)+' |')"
  node -e "console.log('| gotrace (PNG: decode to NRGBA as the engine gets it, threshold, trace, SVG) | $n | '+($n/$p).toFixed(2)+' |')"
} | tee "$out/speed.md"
