#!/usr/bin/env bash
# Scores candidate presets on one category of the bench corpus: each candidate is an
# engine and its parameters; each is traced in process (the engine's TestTraceCorpus)
# and scored with ../shared/bench (bench.sh score). Prints one summary row per candidate.
#
#   scripts/tune-presets.sh OUT_DIR CATEGORY 'ENGINE PARAMS_JSON' ...
#   scripts/tune-presets.sh /tmp/tune logo 'tracecraft {}' 'tracecraft {"tolerance":0.75}'
#
# Needs ../shared/bench set up (or TRACECRAFT_BENCH pointing at it).
set -euo pipefail
out=${1:?usage: tune-presets.sh OUT_DIR CATEGORY 'ENGINE PARAMS' ...}
cat=${2:?category}
shift 2
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench=${TRACECRAFT_BENCH:-$(cd "$repo/../shared/bench" && pwd)}
mkdir -p "$out/corpus-$cat"
out=$(cd "$out" && pwd)
rm -rf "${out:?}/corpus-$cat/$cat" && cp -r "$bench/corpus/$cat" "$out/corpus-$cat/$cat"
for cand in "$@"; do
	engine=${cand%% *}
	params=${cand#* }
	name="$cat-$engine-$(printf '%s' "$params" | tr -c 'A-Za-z0-9.' '_' | sed 's/__*/_/g; s/^_//; s/_$//')"
	[ "$name" != "$cat-$engine-" ] || name="$cat-$engine-defaults"
	rm -rf "${out:?}/$name"
	(cd "$repo" && TRACECRAFT_CORPUS="$out/corpus-$cat" TRACECRAFT_SVG_OUT="$out/$name" TRACECRAFT_PARAMS="$params" \
		go test -count=1 -run '^TestTraceCorpus$' "./plugins/$engine/engine" >/dev/null)
	"$bench/bench.sh" score --corpus "$out/corpus-$cat" --svgs "$out/$name" --engine "$name" --results "$out/results" |
		awk -F'|' -v c="$cand" -v cat=" $cat " '$2 == cat { printf "%-60s SSIM %s PSNR %s bytes %s\n", c, $6, $8, $10 }'
done
