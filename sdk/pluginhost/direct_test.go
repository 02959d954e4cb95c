package pluginhost_test

import (
	"context"
	"errors"
	"image/color"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/tracecraft/tracecraft/internal/testbin"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/internal/tracev1"
	"github.com/tracecraft/tracecraft/sdk/pluginhost"
)

// TestADirectAnswerDecodesAsTheProtobufCodecDecodesIt: the SVG kept in the frame's
// payload, the other fields decoded as usual, whatever order they come in.
func TestADirectAnswerDecodesAsTheProtobufCodecDecodesIt(t *testing.T) {
	full := &tracev1.TraceResponse{Svg: []byte("<svg/>"), Width: 3, Height: 4, DecodeMicros: 5, TraceMicros: 6,
		Failure: &tracev1.Failure{Code: "c", Message: "m"}}
	for _, tt := range []struct {
		name string
		msg  *tracev1.TraceResponse
	}{
		{"every field", full},
		{"no SVG", &tracev1.TraceResponse{Width: 1, Failure: &tracev1.Failure{Code: sdk.CodeInvalidSettings}}},
		{"an empty SVG", &tracev1.TraceResponse{Svg: []byte{}, Height: 2}},
		{"nothing", &tracev1.TraceResponse{}},
	} {
		data, err := proto.Marshal(tt.msg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pluginhost.DecodeTraceResponse(data)
		if err != nil || !proto.Equal(got, tt.msg) {
			t.Errorf("%s: got %v (%v), want %v", tt.name, got, err, tt.msg)
		}
	}
	if _, err := pluginhost.DecodeTraceResponse([]byte{0x0a, 0x05, 'a'}); err == nil {
		t.Error("a truncated SVG field decoded")
	}
}

// TestTraceCallsGoOnTheDirectChannelOfAPluginThatServesIt: this sdk's plugin says it
// serves the direct channel and traces and measures there; one built as sdk 2.4.0 was
// (which had no such channel) is called over gRPC and answers the same.
func TestTraceCallsGoOnTheDirectChannelOfAPluginThatServesIt(t *testing.T) {
	const wire = "github.com/tracecraft/tracecraft/sdk/internal/wire"
	img := testbin.SolidPNG(t, 9, 5, color.NRGBA{B: 255, A: 255})
	big := noisyPNG(t, 400, 300)
	for _, tt := range []struct {
		name   string
		path   string
		direct bool
	}{
		{"this sdk", testbin.TestEngine(t, "testengine", ""), true},
		{"sdk 2.4.0", testbin.Build(t, "./internal/testengine", "main.name=testengine", wire+".reportedSDK=2.4.0"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := pluginhost.Start(pluginhost.Launch{Path: tt.path})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Kill()
			for _, image := range [][]byte{img, big, img} {
				res, err := c.Trace(context.Background(), pluginhost.TraceRequest{Image: image, Params: map[string]any{"color": "#123456"}})
				if err != nil || !strings.Contains(string(res.SVG), `fill="#123456"`) || res.Width == 0 || res.Decode <= 0 {
					t.Fatalf("trace: %+v, %v", res, err)
				}
			}
			a, err := c.Analyze(context.Background(), pluginhost.AnalyzeRequest{Image: img})
			if err != nil || a.Width != 9 || a.Height != 5 || a.Features["colors"] != 1 || a.Decode <= 0 {
				t.Fatalf("analyze: %+v, %v", a, err)
			}
			if c.CallsDirect() != tt.direct {
				t.Errorf("traces on the direct channel: %v, want %v", c.CallsDirect(), tt.direct)
			}
		})
	}
}

// TestACancelledDirectCallStopsTheEngineAndTheNextCallGetsItsOwnAnswer: the call returns
// at once with ctx's error, the engine sees its context cancelled (Idle answers soon),
// and the cancelled call's late answer is not taken for the next call's.
func TestACancelledDirectCallStopsTheEngineAndTheNextCallGetsItsOwnAnswer(t *testing.T) {
	c := start(t, "")
	if _, err := c.Describe(context.Background()); err != nil || !c.CallsDirect() {
		t.Fatalf("the plugin does not serve the direct channel (%v)", err)
	}
	img := testbin.SolidPNG(t, 6, 6, color.NRGBA{R: 255, A: 255})
	for _, tt := range []struct {
		name   string
		action string
		ms     float64
		wait   func() (context.Context, context.CancelFunc)
		want   error
	}{
		{"cancelled", "sleep", 60000, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
		{"past its deadline", "sleep", 60000, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 200*time.Millisecond)
		}, context.DeadlineExceeded},
		// The engine answers the cancelled call after all, with an SVG of the image's red.
		{"cancelled, the engine ignoring it", "hang", 600, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, context.DeadlineExceeded},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := tt.wait()
			defer cancel()
			started := time.Now()
			_, err := c.Trace(ctx, pluginhost.TraceRequest{Image: img, Params: map[string]any{"action": tt.action, "ms": tt.ms}})
			if !errors.Is(err, tt.want) || time.Since(started) > 500*time.Millisecond {
				t.Fatalf("got %v after %v, want %v at once", err, time.Since(started), tt.want)
			}
			idle, stop := context.WithTimeout(context.Background(), 5*time.Second)
			defer stop()
			if err := c.Idle(idle); err != nil {
				t.Fatalf("the engine did not stop: %v", err)
			}
			res, err := c.Trace(context.Background(), pluginhost.TraceRequest{Image: img, Params: map[string]any{"color": "#0a0b0c"}})
			if err != nil || !strings.Contains(string(res.SVG), `fill="#0a0b0c"`) {
				t.Fatalf("the next call: %s, %v", res.SVG, err)
			}
		})
	}
	if !c.CallsDirect() {
		t.Error("the direct channel was given up")
	}
}

// TestADirectAnswerOverTheReceiveLimitIsOutputTooLarge: a 1 MiB SVG against a limit of
// 512 KiB is refused from its frame's header, the channel is closed on both ends (the
// plugin holds one socket fewer), and the client's calls go over gRPC, which refuses it
// too.
func TestADirectAnswerOverTheReceiveLimitIsOutputTooLarge(t *testing.T) {
	c, err := pluginhost.Start(pluginhost.Launch{Path: testbin.Build(t, "./internal/rogueengine", "main.name=checked"), MaxReceiveBytes: 512 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Kill()
	img := testbin.SolidPNG(t, 6, 6, color.NRGBA{R: 255, A: 255})
	sockets := socketsOf(t, c.Pid())
	for i, direct := range []bool{true, false} {
		if _, err := c.Describe(context.Background()); err != nil || c.CallsDirect() != direct {
			t.Fatalf("call %d: traces on the direct channel: %v (%v), want %v", i, c.CallsDirect(), err, direct)
		}
		_, err := c.Trace(context.Background(), pluginhost.TraceRequest{Image: img, Params: map[string]any{"output": "big", "mb": 1.0}, OutputChecked: true})
		if sdk.ErrorCode(err) != sdk.CodeOutputTooLarge {
			t.Fatalf("call %d: got %v, want %s", i, err, sdk.CodeOutputTooLarge)
		}
		if i == 0 && !testbin.Eventually(5*time.Second, func() bool { return socketsOf(t, c.Pid()) == sockets-1 }) {
			t.Errorf("the plugin holds %d sockets after the channel was given up, want %d", socketsOf(t, c.Pid()), sockets-1)
		}
	}
}

// socketsOf counts the sockets process pid has open.
func socketsOf(t *testing.T, pid int) int {
	t.Helper()
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if link, err := os.Readlink(dir + "/" + e.Name()); err == nil && strings.HasPrefix(link, "socket:") {
			n++
		}
	}
	return n
}

// TestACallWaitingBehindAnAbandonedOneKeepsItsOwnDeadline: the engine ignores the cancel
// of a call and works on for 2 s; the next call, which cannot be sent before that answer
// has been read, ends at its own deadline, and a call after the engine has answered gets
// its own answer.
func TestACallWaitingBehindAnAbandonedOneKeepsItsOwnDeadline(t *testing.T) {
	c := start(t, "")
	if _, err := c.Describe(context.Background()); err != nil || !c.CallsDirect() {
		t.Fatalf("the plugin does not serve the direct channel (%v)", err)
	}
	img := testbin.SolidPNG(t, 4, 4, color.NRGBA{R: 255, A: 255})
	for i, tt := range []struct {
		params map[string]any
		limit  time.Duration
		want   error
	}{
		{map[string]any{"action": "hang", "ms": 2000.0}, 100 * time.Millisecond, context.DeadlineExceeded},
		{nil, 200 * time.Millisecond, context.DeadlineExceeded},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), tt.limit)
		started := time.Now()
		_, err := c.Trace(ctx, pluginhost.TraceRequest{Image: img, Params: tt.params})
		cancel()
		if !errors.Is(err, tt.want) || time.Since(started) > tt.limit+300*time.Millisecond {
			t.Fatalf("call %d: got %v after %v, want %v at %v", i, err, time.Since(started), tt.want, tt.limit)
		}
	}
	idle, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	if err := c.Idle(idle); err != nil {
		t.Fatal(err)
	}
	res, err := c.Trace(context.Background(), pluginhost.TraceRequest{Image: img, Params: map[string]any{"color": "#010203"}})
	if err != nil || !strings.Contains(string(res.SVG), `fill="#010203"`) {
		t.Fatalf("the call after: %s, %v", res.SVG, err)
	}
}
