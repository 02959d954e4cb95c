package enginetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/sdk/pluginhost"
)

// FilePrefix starts the file name of every engine plugin: the host loads
// <plugins folder>/tracecraft-engine-<name>, where <name> is the engine's Descriptor.Name.
const FilePrefix = "tracecraft-engine-"

// RunBinary runs the built plugin at path as the host does: it checks the file name
// rule, that the binary runs sdk.Serve (which refuses to run by hand), the handshake,
// the description, and traces the sample images through the protocol, each within
// TraceDeadline. Call it from a test after building the binary:
//
//	func TestBinary(t *testing.T) {
//		bin := filepath.Join(t.TempDir(), "tracecraft-engine-mine")
//		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
//			t.Fatalf("%v\n%s", err, out)
//		}
//		enginetest.RunBinary(t, bin)
//	}
func RunBinary(t *testing.T, path string) {
	t.Helper()
	t.Run("refuses to run by hand", func(t *testing.T) {
		cmd := exec.Command(path)
		cmd.Env = []string{}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), "not meant to be run by hand") {
			t.Errorf("run by hand: %v, stderr %q; want exit status 1 and sdk.Serve's note (does main call sdk.Serve?)", err, stderr.String())
		}
	})
	c, err := pluginhost.Start(pluginhost.Launch{Path: path})
	if err != nil {
		t.Fatalf("the host could not start %s and complete the handshake: %v", path, err)
	}
	t.Cleanup(c.Kill)
	desc, err := c.Describe(context.Background())
	if err != nil {
		t.Fatalf("Describe through the protocol: %v", err)
	}
	t.Run("describes a valid schema through the protocol", func(t *testing.T) {
		if err := desc.Validate(); err != nil {
			t.Errorf("the description is not valid:\n%v", err)
		}
	})
	t.Run("is named after its engine", func(t *testing.T) {
		if want := FilePrefix + desc.Name; filepath.Base(path) != want {
			t.Errorf("the file is named %s; the host loads engine %q only from a file named %s", filepath.Base(path), desc.Name, want)
		}
	})
	st := &stuck{}
	t.Run("traces the sample images through the protocol", func(t *testing.T) {
		for _, s := range Samples() {
			img := encodePNG(t, s.Image)
			trace := func(ctx context.Context) ([]byte, error) {
				r, err := c.Trace(ctx, pluginhost.TraceRequest{Image: img})
				if err == nil && (r.Width != s.Image.Rect.Dx() || r.Height != s.Image.Rect.Dy()) {
					err = fmt.Errorf("the plugin reports a %dx%d image, want %dx%d", r.Width, r.Height, s.Image.Rect.Dx(), s.Image.Rect.Dy())
				}
				return r.SVG, err
			}
			a := traceWithin(t, st, trace, s.Name)
			checkDrawing(t, a, s)
			if b := traceWithin(t, st, trace, s.Name); !bytes.Equal(a, b) {
				t.Errorf("%s: two traces through the plugin differ (%d and %d bytes)", s.Name, len(a), len(b))
			}
		}
	})
}

// encodePNG returns img as a PNG file, as a client uploads it.
func encodePNG(t *testing.T, img *image.NRGBA) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
