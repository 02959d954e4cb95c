package engines

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/tracecraft/tracecraft/internal/testbin"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/pluginhost"
)

// lockedBuffer is a log sink safe for the registry's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestEnginesOfBothProtocolsLoadSideBySide loads an engine of this sdk and one built as
// the previous sdk release (protocol N-1) into one registry: both trace, and the log and
// the health statuses say which sdk and protocol each uses. An engine of an unknown
// protocol fails with the sdk release to rebuild with.
func TestEnginesOfBothProtocolsLoadSideBySide(t *testing.T) {
	const wire = "github.com/tracecraft/tracecraft/sdk/internal/wire"
	dir := t.TempDir()
	testbin.Install(t, testbin.TestEngine(t, "current", ""), dir, "current")
	testbin.Install(t, testbin.Build(t, "./internal/testengine", "main.name=previous",
		wire+".servedProtocol=1", wire+".reportedSDK=1.4.0"), dir, "previous")
	testbin.Install(t, testbin.TestEngine(t, "future", "protocol9"), dir, "future")
	var log lockedBuffer
	r := New(Config{Dir: dir, RunDir: filepath.Join(t.TempDir(), "run"), Processes: 1,
		Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.Info, Output: &log})})
	t.Cleanup(r.Close)
	if _, err := r.Reload(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	want := map[string]Status{
		"current":  {Name: "current", SDKVersion: sdk.Version, Protocol: pluginhost.ProtocolVersion, Status: "ready"},
		"previous": {Name: "previous", SDKVersion: "1.4.0", Protocol: pluginhost.OldestProtocol, Status: "ready"},
	}
	for _, s := range r.Statuses() {
		if s.Name == "future" {
			if s.Status != "failed" || !strings.Contains(s.Error, "rebuild the engine with sdk release 2.x") {
				t.Errorf("future: %+v, want failed saying which sdk release to rebuild with", s)
			}
			continue
		}
		w := want[s.Name]
		if s.SDKVersion != w.SDKVersion || s.Protocol != w.Protocol || s.Status != w.Status {
			t.Errorf("%s: sdk %q protocol %d %s, want sdk %q protocol %d %s", s.Name, s.SDKVersion, s.Protocol, s.Status, w.SDKVersion, w.Protocol, w.Status)
		}
		if _, err := r.Trace(context.Background(), s.Name, job(t, nil)); err != nil {
			t.Errorf("%s: trace: %v", s.Name, err)
		}
	}
	for _, line := range []string{"engine=previous version=1.0.0 stability=stable protocol=1 sdk=1.4.0", "engine=current version=1.0.0 stability=stable protocol=2 sdk=2.5.0"} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("the log does not say %q:\n%s", line, log.String())
		}
	}
}
