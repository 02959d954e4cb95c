// Command regret prints the regret table of the automatic choice: for each image of a
// corpus laid out as CORPUS/<category>/NAME.png, the SSIM and bytes of every setting
// traced into SVGS/<setting>/<category>/NAME.svg, the best of the pool, and how much
// each judged setting (auto, best) loses against it. SSIM is the host's quality score
// (package fidelity, within 0.0024 of the bench's).
//
//	go run ./host/internal/selector/regret -corpus ../shared/bench/corpus -svgs /tmp/out -judge auto,best
package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tracecraft/tracecraft/host/internal/fidelity"
	"github.com/tracecraft/tracecraft/host/internal/selector"
	"github.com/tracecraft/tracecraft/sdk/analysis"
	"github.com/tracecraft/tracecraft/sdk/raster"
)

type cell struct {
	ssim  float64
	bytes int
	ok    bool
}

func main() {
	corpus := flag.String("corpus", "", "corpus folder: <category>/NAME.png")
	svgs := flag.String("svgs", "", "folder of settings: <setting>/<category>/NAME.svg")
	judge := flag.String("judge", "auto,best", "settings to judge against the best of the others (comma-separated)")
	verbose := flag.Bool("v", false, "print every setting's SSIM per image")
	exclude := flag.String("exclude", "", "settings to leave out of the pool and the table (comma-separated)")
	scores := flag.String("scores", "", "read SSIM and bytes from the bench's results instead of scoring: DIR/<prefix><setting>.csv as `bench.sh score --engine <prefix><setting> --results DIR` writes them")
	prefix := flag.String("prefix", "", "the engine name prefix of -scores files")
	rule := flag.Bool("rule", false, "judge the selector's auto rule as the code now has it (selector.AutoCandidates), as setting \"rule\": the preset folders' traces of its candidates, the higher SSIM (4 decimals) kept, the smaller file on a tie")
	flag.Parse()
	files, _ := filepath.Glob(filepath.Join(*corpus, "*", "*.png"))
	sort.Strings(files)
	entries, err := os.ReadDir(*svgs)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var sets []string
	for _, e := range entries {
		if st, err := os.Stat(filepath.Join(*svgs, e.Name())); err == nil && st.IsDir() && !slices.Contains(strings.Split(*exclude, ","), e.Name()) {
			sets = append(sets, e.Name())
		}
	}
	judged := strings.Split(*judge, ",")
	ruleCol := -1
	if *rule {
		sets = append(sets, "rule")
		judged = append(judged, "rule")
		ruleCol = len(sets) - 1
	}
	tries := 0
	var bench map[string]map[string]cell
	if *scores != "" {
		bench = map[string]map[string]cell{}
		for _, set := range sets {
			bench[set] = readBench(filepath.Join(*scores, *prefix+set+".csv"))
		}
	}
	table := make([][]cell, len(files))
	picks := make([]string, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for i, f := range files {
		table[i] = make([]cell, len(sets))
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			data, err := os.ReadFile(f)
			if err != nil {
				return
			}
			ref, _, err := raster.Decode(data, 0)
			if err != nil {
				return
			}
			feats := analysis.Measure(ref)
			picks[i] = selector.Choose(feats)
			cat, name := filepath.Base(filepath.Dir(f)), strings.TrimSuffix(filepath.Base(f), ".png")
			for j, s := range sets {
				if j == ruleCol {
					continue
				}
				if bench != nil {
					table[i][j] = bench[s][cat+"/"+name]
					continue
				}
				svg, err := os.ReadFile(filepath.Join(*svgs, s, cat, name+".svg"))
				if err != nil {
					continue
				}
				sc, err := fidelity.ScoreSVG(context.Background(), ref, svg)
				if err != nil {
					continue
				}
				if sc.SSIM == nil {
					continue
				}
				table[i][j] = cell{ssim: *sc.SSIM, bytes: len(svg), ok: true}
			}
			if ruleCol >= 0 {
				// As auto traces them: the first two distinct settings (a preset's own
				// settings, or its variant's).
				var names, keys []string
				for _, c := range selector.AutoCandidates(feats) {
					key := settingsKey(c.Category, c.Variant)
					if slices.Contains(keys, key) || len(keys) == 2 {
						continue
					}
					keys = append(keys, key)
					names = append(names, c.Category)
					k := slices.Index(sets, c.Category)
					if k < 0 || !table[i][k].ok {
						continue
					}
					got, r := table[i][k], &table[i][ruleCol]
					if !r.ok || round4(got.ssim) > round4(r.ssim) || (round4(got.ssim) == round4(r.ssim) && got.bytes < r.bytes) {
						*r = got
					}
				}
				picks[i] = strings.Join(names, "+")
			}
		}()
	}
	wg.Wait()

	type summary struct {
		within, met, over01, bytesOver, n int
		worst, sum                        float64
	}
	sums := make([]summary, len(judged))
	for i, f := range files {
		cat, name := filepath.Base(filepath.Dir(f)), strings.TrimSuffix(filepath.Base(f), ".png")
		best := -1
		for j, s := range sets {
			if slices.Contains(judged, s) || !table[i][j].ok {
				continue
			}
			if best < 0 || table[i][j].ssim > table[i][best].ssim ||
				(table[i][j].ssim == table[i][best].ssim && table[i][j].bytes < table[i][best].bytes) {
				best = j
			}
		}
		if best < 0 {
			continue
		}
		b := table[i][best]
		if strings.Contains(picks[i], "+") {
			tries++
		}
		line := fmt.Sprintf("%-8s %-36s choose=%-8s best=%-15s %.4f %8d", cat, name, picks[i], sets[best], b.ssim, b.bytes)
		for k, jn := range judged {
			j := slices.Index(sets, jn)
			if j < 0 || !table[i][j].ok {
				continue
			}
			c := table[i][j]
			loss := b.ssim - c.ssim
			ratio := float64(c.bytes) / float64(b.bytes)
			mark := ""
			if loss > 0.005 || ratio > 1.5 {
				mark = "!"
			}
			line += fmt.Sprintf(" | %s %.4f loss %.4f bytes x%.2f%s", jn, c.ssim, loss, ratio, mark)
			s := &sums[k]
			s.n++
			s.sum += max(loss, 0)
			if loss <= 0.005 {
				s.within++
				if ratio <= 1.5 {
					s.met++
				}
			}
			if loss > 0.01 {
				s.over01++
			}
			if ratio > 1.5 {
				s.bytesOver++
			}
			s.worst = max(s.worst, loss)
		}
		fmt.Println(line)
		if *verbose {
			var parts []string
			for j, s := range sets {
				if table[i][j].ok {
					parts = append(parts, fmt.Sprintf("%s=%.4f/%d", s, table[i][j].ssim, table[i][j].bytes))
				}
			}
			fmt.Println("    ", strings.Join(parts, " "))
		}
	}
	if ruleCol >= 0 {
		fmt.Printf("\nrule: two candidates traced on %d of %d images\n", tries, len(files))
	}
	fmt.Printf("\npool: %s\n", strings.Join(slices.DeleteFunc(slices.Clone(sets), func(s string) bool { return slices.Contains(judged, s) }), ", "))
	for k, jn := range judged {
		s := sums[k]
		if s.n == 0 {
			continue
		}
		fmt.Printf("%-6s images %d: within 0.005 %d (and bytes at most 1.5x: %d), more than 0.01 below %d, bytes over 1.5x %d, worst loss %.4f, mean loss %.4f\n",
			jn, s.n, s.within, s.met, s.over01, s.bytesOver, s.worst, s.sum/float64(s.n))
	}
}

// settingsKey names the engine and parameters the preset category (with variant) traces
// with, so that presets with the same settings count once.
func settingsKey(category, variant string) string {
	for _, p := range selector.Presets() {
		if p.Name != category {
			continue
		}
		for _, v := range p.Variants {
			if v.Name == variant {
				return fmt.Sprint(v.Engine, v.Params)
			}
		}
		return fmt.Sprint(p.Engine, p.Params)
	}
	return category + "/" + variant
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// readBench reads a bench results CSV: ssim and svgBytes by image (category/name).
func readBench(path string) map[string]cell {
	out := map[string]cell{}
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return out
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 {
		fmt.Fprintln(os.Stderr, path, err)
		return out
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, r := range rows[1:] {
		if r[col["ok"]] != "true" {
			continue
		}
		ssim, err1 := strconv.ParseFloat(r[col["ssim"]], 64)
		bytes, err2 := strconv.Atoi(r[col["svgBytes"]])
		if err1 == nil && err2 == nil {
			out[r[col["image"]]] = cell{ssim: ssim, bytes: bytes, ok: true}
		}
	}
	return out
}
