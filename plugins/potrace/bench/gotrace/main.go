// Command gotrace traces a PBM (or a PNG, thresholded like the engine) with package
// trace and writes the engine's SVG: the Go counterpart of `potrace --svg`, for
// whole-process comparisons with the potrace CLI (time, peak memory, output).
//
//	gotrace [-t turdsize] [-z policy] [-a alphamax] [-n] [-O tolerance] [-k threshold] -o OUT.svg IN.pbm|IN.png
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"math/bits"
	"os"
	"strings"

	"github.com/tracecraft/tracecraft/plugins/potrace/trace"
)

// precision is the engine's (engine.Precision), not imported so that the tool starts
// without the plugin sdk's gRPC initialisation.
const precision = 1

func main() {
	opts := trace.DefaultOptions()
	flag.IntVar(&opts.TurdSize, "t", opts.TurdSize, "turdsize: drop paths enclosing at most this many pixels")
	policy := flag.String("z", "minority", "turn policy: black, white, left, right, minority, majority")
	flag.Float64Var(&opts.AlphaMax, "a", opts.AlphaMax, "alphamax: corner threshold")
	noOpt := flag.Bool("n", false, "turn off curve optimisation")
	flag.Float64Var(&opts.OptTolerance, "O", opts.OptTolerance, "curve optimisation tolerance")
	threshold := flag.Float64("k", 128, "luma threshold for PNG input")
	out := flag.String("o", "", "output SVG file (default stdout)")
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	var err error
	if opts.TurnPolicy, err = trace.ParseTurnPolicy(*policy); err != nil {
		fail(err)
	}
	opts.OptCurve = !*noOpt
	bm, err := load(flag.Arg(0), *threshold)
	if err != nil {
		fail(err)
	}
	roots, err := trace.Trace(context.Background(), bm, opts)
	if err != nil {
		fail(err)
	}
	doc := trace.Document(bm.Width, bm.Height, roots, precision)
	if *out == "" {
		_, err = os.Stdout.Write(doc)
	} else {
		err = os.WriteFile(*out, doc, 0o644)
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gotrace:", err)
	os.Exit(1)
}

func load(name string, threshold float64) (*trace.Bitmap, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	magic, err := r.Peek(2)
	if err != nil {
		return nil, err
	}
	if string(magic) == "P4" {
		return readPBM(r)
	}
	img, err := png.Decode(r)
	if err != nil {
		return nil, err
	}
	n, ok := img.(*image.NRGBA)
	if !ok {
		n = image.NewNRGBA(img.Bounds())
		draw.Draw(n, n.Rect, img, img.Bounds().Min, draw.Src)
	}
	return trace.Threshold(n, threshold), nil
}

// readPBM reads a binary PBM: "P4", width, height, then rows of bytes, most
// significant bit first, 1 = black.
func readPBM(r *bufio.Reader) (*trace.Bitmap, error) {
	var fields []int
	if _, err := r.Discard(2); err != nil {
		return nil, err
	}
	for len(fields) < 2 {
		tok, err := token(r)
		if err != nil {
			return nil, err
		}
		var v int
		if _, err := fmt.Sscan(tok, &v); err != nil || v < 0 {
			return nil, fmt.Errorf("bad PBM header field %q", tok)
		}
		fields = append(fields, v)
	}
	w, h := fields[0], fields[1]
	bm := trace.NewBitmap(w, h)
	rowBytes := (w + 7) / 8
	buf := make([]byte, rowBytes)
	for y := 0; y < h; y++ {
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		words := bm.Row(y)
		for i, c := range buf {
			// PBM puts the leftmost pixel in the top bit; the bitmap in the lowest.
			words[i/8] |= uint64(bits.Reverse8(c)) << (8 * (i % 8))
		}
		if w%64 != 0 { // padding bits must stay white
			words[len(words)-1] &= 1<<(uint(w)%64) - 1
		}
	}
	return bm, nil
}

// token reads one whitespace-separated header token, skipping # comments, and the
// single whitespace character after it.
func token(r *bufio.Reader) (string, error) {
	var b bytes.Buffer
	for {
		c, err := r.ReadByte()
		if err != nil {
			return "", errors.Join(err, errors.New("truncated PBM header"))
		}
		switch {
		case c == '#':
			if _, err := r.ReadString('\n'); err != nil {
				return "", err
			}
		case strings.IndexByte(" \t\r\n", c) >= 0:
			if b.Len() > 0 {
				return b.String(), nil
			}
		default:
			b.WriteByte(c)
		}
	}
}
