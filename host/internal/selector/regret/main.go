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
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
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
			picks[i] = selector.Choose(analysis.Measure(ref))
			cat, name := filepath.Base(filepath.Dir(f)), strings.TrimSuffix(filepath.Base(f), ".png")
			for j, s := range sets {
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
		}()
	}
	wg.Wait()

	type summary struct {
		within, over01, bytesOver, n int
		worst, sum                   float64
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
	fmt.Printf("\npool: %s\n", strings.Join(slices.DeleteFunc(slices.Clone(sets), func(s string) bool { return slices.Contains(judged, s) }), ", "))
	for k, jn := range judged {
		s := sums[k]
		if s.n == 0 {
			continue
		}
		fmt.Printf("%-6s images %d: within 0.005 %d, more than 0.01 below %d, bytes over 1.5x %d, worst loss %.4f, mean loss %.4f\n",
			jn, s.n, s.within, s.over01, s.bytesOver, s.worst, s.sum/float64(s.n))
	}
}
