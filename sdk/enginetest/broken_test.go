package enginetest_test

import (
	"bytes"
	"context"
	"image"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/internal/testbin"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// brokenEnv names the broken engine TestBrokenEngine runs the suite on, in the child
// process TestTheSuiteFailsBrokenEngines starts.
const brokenEnv = "ENGINETEST_BROKEN"

type sleepParams struct {
	Ms int `param:"ms" min:"0" max:"600000" default:"0" desc:"milliseconds to sleep"`
}

// sleepy sleeps for its ms parameter (600 s at the edge of its range), then draws a
// rectangle.
type sleepy struct{ blank bool }

func (sleepy) Describe() sdk.Descriptor {
	return sdk.Descriptor{Name: "sleepy", Version: "1", Stability: sdk.Experimental, Description: "sleeps", Params: sdk.Describe[sleepParams]()}
}

func (e sleepy) Trace(ctx context.Context, img *image.NRGBA, p sleepParams) ([]byte, error) {
	select {
	case <-time.After(time.Duration(p.Ms) * time.Millisecond):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var b bytes.Buffer
	svg.Header(&b, img.Rect.Dx(), img.Rect.Dy(), false, "")
	if !e.blank {
		b.WriteString(`<rect width="1" height="1"/>`)
	}
	svg.Footer(&b)
	return b.Bytes(), nil
}

// intDefault describes its parameter by hand, with the int default 128.
type intDefault struct{ sleepy }

func (intDefault) Describe() sdk.Descriptor {
	d := sleepy{}.Describe()
	d.Params[0].Default = 128
	return d
}

// TestBrokenEngine runs the suite on a broken engine when asked to by its parent test.
func TestBrokenEngine(t *testing.T) {
	switch os.Getenv(brokenEnv) {
	case "":
		t.Skip("run by TestTheSuiteFailsBrokenEngines")
	case "blank":
		enginetest.Run[sleepParams](t, func() sleepy { return sleepy{blank: true} })
	case "sleepy":
		enginetest.Run[sleepParams](t, func() sleepy { return sleepy{} })
	case "int default":
		enginetest.Run[sleepParams](t, func() intDefault { return intDefault{} })
	case "misnamed binary":
		enginetest.RunBinary(t, testbin.Install(t, testbin.TestEngine(t, "testengine", ""), t.TempDir(), "other"))
	case "not a plugin":
		enginetest.RunBinary(t, testbin.Install(t, "/bin/true", t.TempDir(), "true"))
	}
}

// TestTheSuiteFailsBrokenEngines runs the suite on broken engines, each in a child
// process (a failing suite fails its test), and checks that it fails, saying why, and
// in well under a minute.
func TestTheSuiteFailsBrokenEngines(t *testing.T) {
	tests := []struct {
		broken string
		want   string
	}{
		{"blank", "the SVG draws nothing for a 64x48 opaque image"},
		{"sleepy", "ms=600000: the trace took more than 10s (TraceDeadline)"},
		{"int default", "default 128 has Go type int; a number parameter's default must be a float64 (write 128.0, not 128)"},
		{"misnamed binary", "the file is named tracecraft-engine-other; the host loads engine \"testengine\" only from a file named tracecraft-engine-testengine"},
		{"not a plugin", "does main call sdk.Serve?"},
	}
	for _, tt := range tests {
		t.Run(tt.broken, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenEngine$", "-test.v")
			cmd.Env = append(os.Environ(), brokenEnv+"="+tt.broken)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			took := time.Since(start)
			if err == nil || !strings.Contains(string(out), "--- FAIL") {
				t.Errorf("the suite passed the %s engine:\n%s", tt.broken, out)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Errorf("the suite's output does not say %q:\n%s", tt.want, out)
			}
			if took > 40*time.Second {
				t.Errorf("the suite took %v on the %s engine", took, tt.broken)
			}
		})
	}
}

// TestRunBinaryPassesARealPlugin runs the binary suite on the test engine.
func TestRunBinaryPassesARealPlugin(t *testing.T) {
	enginetest.RunBinary(t, testbin.Install(t, testbin.TestEngine(t, "testengine", ""), t.TempDir(), "testengine"))
}
