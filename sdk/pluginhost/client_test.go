package pluginhost_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/internal/testbin"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/pluginhost"
)

// start launches the test engine (built once per variant) and kills it after the test.
func start(t testing.TB, variant string) *pluginhost.Client {
	t.Helper()
	c, err := pluginhost.Start(pluginhost.Launch{Path: testbin.TestEngine(t, "testengine", variant)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Kill)
	return c
}

func TestClientDescribesTracesAndAnalyzesThroughARealPlugin(t *testing.T) {
	c := start(t, "")
	if c.Protocol() != pluginhost.ProtocolVersion {
		t.Errorf("negotiated protocol %d, want %d", c.Protocol(), pluginhost.ProtocolVersion)
	}
	d, err := c.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "testengine" || d.Stability != sdk.Stable || len(d.Params) != 3 || d.Params[1].Default != 0.0 || !d.Params[1].Integer {
		t.Errorf("description came through wrong: %+v", d)
	}
	if err := d.Validate(); err != nil {
		t.Errorf("description is not valid after the round trip: %v", err)
	}
	img := testbin.SolidPNG(t, 30, 20, color.NRGBA{R: 255, A: 255})
	res, err := c.Trace(context.Background(), pluginhost.TraceRequest{Image: img, Params: map[string]any{"color": "blue"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 30 || res.Height != 20 || !strings.Contains(string(res.SVG), `fill="#00f"`) {
		t.Errorf("trace gave %dx%d %s", res.Width, res.Height, res.SVG)
	}
	a, err := c.Analyze(context.Background(), pluginhost.AnalyzeRequest{Image: img})
	if err != nil {
		t.Fatal(err)
	}
	if a.Width != 30 || a.Features["colors"] != 1 || a.Features["top1_share"] != 1 {
		t.Errorf("analysis %+v", a)
	}
}

func TestClientHandsAFilledImageFileToThePlugin(t *testing.T) {
	c := start(t, "")
	f, err := pluginhost.NewImageFile(4 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	// Noisy images, so their PNGs are larger than the smallest image sent as a file; the
	// file is refilled with a smaller image, then a larger one.
	for _, size := range [][2]int{{400, 300}, {200, 250}, {500, 420}} {
		img := noisyPNG(t, size[0], size[1])
		if len(img) < 64<<10 {
			t.Fatalf("test image of %d bytes is too small to travel as a file", len(img))
		}
		if over, err := f.Fill(bytes.NewReader(img)); over || err != nil {
			t.Fatalf("Fill: over %v, %v", over, err)
		}
		res, err := c.Trace(ctx, pluginhost.TraceRequest{File: f})
		if err != nil || res.Width != size[0] || res.Height != size[1] {
			t.Fatalf("trace of the file: %dx%d, %v; want %dx%d", res.Width, res.Height, err, size[0], size[1])
		}
		a, err := c.Analyze(ctx, pluginhost.AnalyzeRequest{File: f})
		if err != nil || a.Width != size[0] || a.Height != size[1] {
			t.Fatalf("analysis of the file: %+v, %v", a, err)
		}
		// The image as part of a request body in the file, off a page boundary.
		head := []byte("--boundary\r\n\r\n")
		body := append(append(head, img...), "\r\n--boundary--"...)
		if over, err := f.Fill(bytes.NewReader(body)); over || err != nil {
			t.Fatalf("Fill: over %v, %v", over, err)
		}
		if err := f.Select(int64(len(head)), int64(len(img))); err != nil {
			t.Fatal(err)
		}
		res, err = c.Trace(ctx, pluginhost.TraceRequest{File: f})
		if err != nil || res.Width != size[0] || res.Height != size[1] {
			t.Fatalf("trace of part of the file: %dx%d, %v; want %dx%d", res.Width, res.Height, err, size[0], size[1])
		}
		a, err = c.Analyze(ctx, pluginhost.AnalyzeRequest{File: f})
		if err != nil || a.Width != size[0] || a.Height != size[1] {
			t.Fatalf("analysis of part of the file: %+v, %v", a, err)
		}
	}
}

// noisyPNG is a w x h PNG of random pixels.
func noisyPNG(t *testing.T, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewSource(int64(w * h)))
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.Intn(256))
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestClientReportsEngineErrorsWithTheirCodes(t *testing.T) {
	c := start(t, "")
	img := testbin.SolidPNG(t, 4, 4, color.NRGBA{A: 255})
	tests := []struct {
		name   string
		image  []byte
		params map[string]any
		max    int64
		code   string
	}{
		{"unknown parameter", img, map[string]any{"nope": 1.0}, 0, sdk.CodeInvalidSettings},
		{"out of range", img, map[string]any{"ms": -1.0}, 0, sdk.CodeInvalidSettings},
		{"engine failure", img, map[string]any{"action": "fail"}, 0, sdk.CodeInvalidSettings},
		{"not an image", []byte("hello"), nil, 0, sdk.CodeUnsupportedFormat},
		{"empty", nil, nil, 0, sdk.CodeEmptyImage},
		{"too many pixels", img, nil, 10, sdk.CodeTooManyPixels},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Trace(context.Background(), pluginhost.TraceRequest{Image: tt.image, Params: tt.params, MaxPixels: tt.max})
			if sdk.ErrorCode(err) != tt.code {
				t.Errorf("got %v, want code %s", err, tt.code)
			}
		})
	}
	if _, err := c.Trace(context.Background(), pluginhost.TraceRequest{Image: img}); err != nil {
		t.Errorf("the process does not serve after errors: %v", err)
	}
}

func TestClientSeesACrashAsErrCrashed(t *testing.T) {
	for _, action := range []string{"panic", "exit"} {
		t.Run(action, func(t *testing.T) {
			c := start(t, "")
			_, err := c.Trace(context.Background(), pluginhost.TraceRequest{Image: testbin.SolidPNG(t, 2, 2, color.NRGBA{A: 255}), Params: map[string]any{"action": action}})
			if !errors.Is(err, pluginhost.ErrCrashed) {
				t.Fatalf("got %v, want ErrCrashed", err)
			}
			waitFor(t, c.Exited)
		})
	}
}

func TestKillEndsThePluginAndTheProcessesItStarted(t *testing.T) {
	c := start(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := c.Trace(ctx, pluginhost.TraceRequest{Image: testbin.SolidPNG(t, 2, 2, color.NRGBA{A: 255}), Params: map[string]any{"action": "spawn", "ms": 60000.0}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the deadline", err)
	}
	children := childrenOf(t, c.Pid())
	if len(children) == 0 {
		t.Fatal("the plugin started no child")
	}
	c.Kill()
	if !c.Exited() {
		t.Error("the plugin has not exited after Kill")
	}
	for _, pid := range children {
		waitFor(t, func() bool { return !testbin.Alive(pid) })
	}
}

func TestStartRefusesAPluginOfAnUnknownProtocolVersionSayingWhatToRebuildWith(t *testing.T) {
	_, err := pluginhost.Start(pluginhost.Launch{Path: testbin.TestEngine(t, "testengine", "protocol9")})
	want := "the engine speaks protocol 9, this host protocols 1 to 2 (sdk releases 1.x to 2.x): rebuild the engine with sdk release 2.x, or upgrade the host to one that speaks protocol 9"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant an error saying %q", err, want)
	}
}

// previousSDKEngine builds the test engine as the previous sdk release would: serving
// protocol N-1 only and reporting sdk 1.4.0.
func previousSDKEngine(t *testing.T) string {
	const wire = "github.com/tracecraft/tracecraft/sdk/internal/wire"
	return testbin.Build(t, "./internal/testengine", "main.name=testengine",
		wire+".servedProtocol="+strconv.Itoa(pluginhost.OldestProtocol), wire+".reportedSDK=1.4.0")
}

// TestHostServesTheCurrentAndThePreviousProtocol starts a plugin of this sdk and one
// built as the previous release's, side by side: each negotiates its own protocol,
// reports its sdk version and traces.
func TestHostServesTheCurrentAndThePreviousProtocol(t *testing.T) {
	tests := []struct {
		name     string
		path     string
		protocol int
		sdk      string
	}{
		{"this sdk", testbin.TestEngine(t, "testengine", ""), pluginhost.ProtocolVersion, sdk.Version},
		{"the previous sdk", previousSDKEngine(t), pluginhost.OldestProtocol, "1.4.0"},
	}
	if pluginhost.OldestProtocol != pluginhost.ProtocolVersion-1 || sdk.Version != "2.5.0" {
		t.Fatalf("protocols %d..%d, sdk %s: the policy is N and N-1", pluginhost.OldestProtocol, pluginhost.ProtocolVersion, sdk.Version)
	}
	img := testbin.SolidPNG(t, 8, 6, color.NRGBA{G: 255, A: 255})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := pluginhost.Start(pluginhost.Launch{Path: tt.path})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Kill()
			if c.Protocol() != tt.protocol {
				t.Errorf("negotiated protocol %d, want %d", c.Protocol(), tt.protocol)
			}
			if _, err := c.Describe(context.Background()); err != nil {
				t.Fatal(err)
			}
			if c.SDKVersion() != tt.sdk {
				t.Errorf("sdk version %q, want %q", c.SDKVersion(), tt.sdk)
			}
			res, err := c.Trace(context.Background(), pluginhost.TraceRequest{Image: img})
			if err != nil || !strings.Contains(string(res.SVG), `fill="#0f0"`) {
				t.Errorf("trace: %v %s", err, res.SVG)
			}
		})
	}
}

// childrenOf returns the pids whose parent is pid, read from /proc.
func childrenOf(t *testing.T, pid int) []int {
	t.Helper()
	var kids []int
	deadline := time.Now().Add(5 * time.Second)
	for len(kids) == 0 && time.Now().Before(deadline) {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			p, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if err != nil {
				continue
			}
			// Field 4 of /proc/PID/stat, after the parenthesised command name, is the ppid.
			fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
			if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
				kids = append(kids, p)
			}
		}
		if len(kids) == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return kids
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	if !testbin.Eventually(5*time.Second, cond) {
		t.Fatal("condition not met within 5s")
	}
}

func TestAnalyzeKeepThenTraceUsesTheDecodedImage(t *testing.T) {
	c := start(t, "")
	ctx := context.Background()
	img := testbin.SolidPNG(t, 120, 80, color.NRGBA{10, 200, 30, 255})
	want, err := c.Trace(ctx, pluginhost.TraceRequest{Image: img})
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.AnalyzeKeep(ctx, pluginhost.AnalyzeRequest{Image: img})
	if err != nil || a.Width != 120 || a.Decode <= 0 || a.Took < a.Decode {
		t.Fatalf("AnalyzeKeep: %+v, %v", a, err)
	}
	// The kept image is traced without decoding: the plugin reports no decode time.
	got, err := c.Trace(ctx, pluginhost.TraceRequest{Image: img, UseKept: true})
	if err != nil || !bytes.Equal(got.SVG, want.SVG) || got.Decode > 100*time.Microsecond {
		t.Errorf("trace of the kept image: %+v, %v", got, err)
	}
	// Nothing is kept any more: the image is sent and decoded.
	got, err = c.Trace(ctx, pluginhost.TraceRequest{Image: img, UseKept: true})
	if err != nil || !bytes.Equal(got.SVG, want.SVG) || got.Decode == 0 {
		t.Errorf("trace with nothing kept: %+v, %v", got, err)
	}
}

// TestAPluginLeavesTheOutputCheckToACallerThatChecks runs the rogue engine with the sdk's
// own output check on: asked for a <script>, it refuses its SVG with CodeBadOutput, unless
// the request says the caller checks the output (OutputChecked, the host's registry
// does), when it answers the SVG as made, for the caller to refuse.
func TestAPluginLeavesTheOutputCheckToACallerThatChecks(t *testing.T) {
	c, err := pluginhost.Start(pluginhost.Launch{Path: testbin.Build(t, "./internal/rogueengine", "main.name=checked")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Kill)
	img := testbin.SolidPNG(t, 12, 7, color.NRGBA{200, 10, 10, 255})
	for _, checked := range []bool{false, true} {
		r, err := c.Trace(context.Background(), pluginhost.TraceRequest{Image: img, Params: map[string]any{"output": "script"}, OutputChecked: checked})
		switch {
		case !checked && sdk.ErrorCode(err) != sdk.CodeBadOutput:
			t.Errorf("without OutputChecked: got %v, want the plugin's %s", err, sdk.CodeBadOutput)
		case checked && (err != nil || !bytes.Contains(r.SVG, []byte("<script"))):
			t.Errorf("with OutputChecked: got %v and %.80q, want the SVG as the engine made it", err, r.SVG)
		}
	}
}
