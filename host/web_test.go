package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/tracecraft/tracecraft/internal/testbin"
)

// The browser test drives the web page at / in headless Chromium against the real
// host and bundled engines. Chromium is $TRACECRAFT_CHROMIUM when set, otherwise
// /usr/bin/chromium (Debian's package chromium), /usr/bin/chromium-headless-shell
// (Debian's chromium-headless-shell, which make test installs: 104 packages against
// chromium's 165) or one of them on the PATH; without it the
// test is skipped, except under CI, where it fails. Screenshots go to $TRACECRAFT_ARTEFACTS/web when that is
// set, otherwise to a temporary folder removed after the test; the test logs where.

// busyTitle is the page's error title after a 429, with the wait it was told.
var busyTitle = regexp.MustCompile(`^The service is busy: try again in (\d+) s\.$`)

// atoi returns the number s writes, or -1.
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

// chromium returns the browser to drive, or skips (fails under CI) when there is none.
func chromium(t *testing.T) string {
	t.Helper()
	candidates := []string{"/usr/bin/chromium", "/usr/bin/chromium-headless-shell"}
	for _, name := range []string{"chromium", "chromium-browser", "chromium-headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			candidates = append(candidates, p)
		}
	}
	if env := os.Getenv("TRACECRAFT_CHROMIUM"); env != "" {
		candidates = []string{env} // the only one tried when set
	}
	for _, c := range candidates {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c
		}
	}
	msg := fmt.Sprintf("Chromium is not installed: no %s (Debian: apt-get install -y chromium-headless-shell; or set TRACECRAFT_CHROMIUM)", strings.Join(candidates, ", "))
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg + ": skipping the browser test")
	return ""
}

// screenshotsDir returns the folder for the test's screenshots.
func screenshotsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if base := os.Getenv("TRACECRAFT_ARTEFACTS"); base != "" {
		dir = filepath.Join(base, "web")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

// logoFile returns a small logo of the bench corpus ($TRACECRAFT_CORPUS, or
// ../shared/bench/corpus beside the repository), or a generated one when the corpus is
// absent.
func logoFile(t *testing.T) string {
	t.Helper()
	corpus := corpusDir()
	path := filepath.Join(corpus, "logo", "twemoji-1f1fa-1f1f8-flag-us.png")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	t.Logf("no bench corpus at %s: tracing a generated logo", corpus)
	img := image.NewNRGBA(image.Rect(0, 0, 160, 120))
	for y := 0; y < 120; y++ {
		for x := 0; x < 160; x++ {
			c := color.NRGBA{255, 255, 255, 255}
			if (x-80)*(x-80)+(y-60)*(y-60) < 45*45 {
				c = color.NRGBA{200, 30, 40, 255}
			} else if y > 100 {
				c = color.NRGBA{20, 60, 160, 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return writeTemp(t, "logo.png", b.Bytes())
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// presetNames returns the names of the schema's presets in their order.
func presetNames(t *testing.T, schema []byte) []string {
	t.Helper()
	var doc struct {
		Presets json.RawMessage `json:"presets"`
	}
	if err := json.Unmarshal(schema, &doc); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(doc.Presets))
	var names []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return names
}

// browserPage is one tab on the host's page, with the console problems it reported.
type browserPage struct {
	t        *testing.T
	ctx      context.Context
	dir      string
	mu       sync.Mutex
	problems []string
}

// do runs actions and fails the test on error.
func (p *browserPage) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression and decodes its result into a T.
func eval[T any](p *browserPage, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// text returns the text content of the element with the CSS selector sel.
func (p *browserPage) text(sel string) string {
	p.t.Helper()
	b, _ := json.Marshal(sel)
	return eval[string](p, fmt.Sprintf(`(document.querySelector(%s) || {textContent: ""}).textContent`, b))
}

// answers returns how many answers of /api/vectorize the page has shown.
func (p *browserPage) answers() int {
	p.t.Helper()
	return eval[int](p, `Number(document.body.dataset.traces || 0)`)
}

// waitAnswer waits until the page has shown more than after answers and is not busy,
// and checks that it is in state want ("done" or "error").
func (p *browserPage) waitAnswer(after int, want string) {
	p.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := eval[struct {
			N     int    `json:"n"`
			State string `json:"state"`
		}](p, `({n: Number(document.body.dataset.traces || 0), state: document.body.dataset.state})`)
		if st.N > after && st.State != "tracing" {
			if st.State != want {
				p.t.Fatalf("page state = %q, want %q; status %q; error %q", st.State, want, p.text("#status"), p.text("#error"))
			}
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no answer within 60 s: state %q, status %q, error %q", st.State, p.text("#status"), p.text("#error"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// viewShot saves a screenshot of what the window shows as name.png.
func (p *browserPage) viewShot(name string) {
	p.t.Helper()
	buf, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(p.dir, name+".png"), buf, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// choose sets a select's value the way picking an option does, firing change.
func (p *browserPage) choose(sel, value string) {
	p.t.Helper()
	s, _ := json.Marshal(sel)
	v, _ := json.Marshal(value)
	ok := eval[bool](p, fmt.Sprintf(`(() => { const e = document.querySelector(%s); if (!e || ![...e.options].some(o => o.value === %s)) return false;
		e.value = %s; e.dispatchEvent(new Event('change', {bubbles: true})); return true })()`, s, v, v))
	if !ok {
		p.t.Fatalf("%s has no option %s", sel, value)
	}
}

// typeInto replaces the text of the input sel by keys, as a person pasting it does: the
// text is selected (Ctrl+A) and the new one inserted at once, in one input event. Typed
// key by key, a pause of more than the page's 400 ms wait between two keys (a loaded
// machine's) traced a partial value, "#1d3557," of "#1d3557, reddish", whose answer
// the test then took for the whole value's.
func (p *browserPage) typeInto(sel, keys string) {
	p.t.Helper()
	p.do("type into "+sel,
		chromedp.Focus(chromedp.CSS(sel)),
		chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, input.InsertText, input.InsertTextParams{Text: keys})
			return err
		}))
}

// openBrowser starts the browser with one tab and returns it; the browser stops when
// the test ends. Script errors and policy violations (a Content-Security-Policy that
// blocks the page's own files shows here) fail the test; failed requests are expected,
// since the page is made to meet API errors.
func openBrowser(t *testing.T, browser string) *browserPage {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.WindowSize(1280, 900))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run its sandbox as root
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(cancelTab)
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(cancel)
	p := &browserPage{t: t, ctx: ctx, dir: screenshotsDir(t)}
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("starting %s: %v", browser, err)
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		var problem string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			problem = ev.ExceptionDetails.Text
			if ex := ev.ExceptionDetails.Exception; ex != nil {
				problem += " " + ex.Description
			}
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError && ev.Entry.Source != cdplog.EntrySourceNetwork {
				problem = fmt.Sprintf("%s: %s (%s)", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				problem = "console.error"
			}
		}
		if problem != "" {
			p.mu.Lock()
			p.problems = append(p.problems, problem)
			p.mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, pr := range p.problems {
			t.Errorf("browser reported: %s", pr)
		}
	})
	return p
}

func TestWebPageTracesAnImageAndExplainsRefusals(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	plugins := t.TempDir()
	for _, e := range []string{"tracecraft", "vtracer", "potrace"} {
		testbin.Install(t, testbin.Build(t, "./plugins/"+e), plugins, e)
	}
	h := startHost(t, plugins, "")
	logo := logoFile(t)
	var gifData bytes.Buffer
	if err := gif.Encode(&gifData, image.NewPaletted(image.Rect(0, 0, 8, 8), []color.Color{color.Black, color.White}), nil); err != nil {
		t.Fatal(err)
	}
	gifFile := writeTemp(t, "animation.gif", gifData.Bytes())

	// The page and its assets are served beside the API; unknown API paths stay JSON.
	page := h.get("/")
	if page.status != 200 || !strings.HasPrefix(page.header.Get("Content-Type"), "text/html") ||
		!strings.Contains(page.header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("GET / = %d %s, CSP %q", page.status, page.header.Get("Content-Type"), page.header.Get("Content-Security-Policy"))
	}
	head, _ := http.NewRequest(http.MethodHead, h.url+"/", nil)
	if r := do(t, head); r.status != 200 {
		t.Errorf("HEAD / = %s", r)
	}
	if r := h.get("/api/nope"); r.status != 404 || r.errorCode() != "not_found" {
		t.Errorf("GET /api/nope = %s, want the JSON 404", r)
	}

	p := openBrowser(t, browser)

	// Load: the controls come from /api/schema.
	p.do("load the page", chromedp.Navigate(h.url+"/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="ready"]`)))
	presets := eval[[]string](p, `[...document.querySelectorAll('#preset option')].map(o => o.value)`)
	engines := eval[[]string](p, `[...document.querySelectorAll('#engine option')].map(o => o.value)`)
	wantPresets := presetNames(t, h.get("/api/schema").body)
	if !slices.Equal(presets, wantPresets) || strings.Join(engines, ",") != "tracecraft,auto,vtracer,potrace" {
		t.Errorf("presets %v and engines %v, want the schema's: %v and tracecraft,auto,vtracer,potrace", presets, engines, wantPresets)
	}
	params := eval[[]string](p, `[...document.querySelectorAll('#param-list .param')].map(r => r.dataset.param)`)
	if len(params) != 0 {
		t.Errorf("with preset and engine auto the page shows parameters %v, want none until an engine is known", params)
	}
	p.viewShot("01-loaded")

	// Upload: the page traces at once and shows the SVG beside the original.
	n := p.answers()
	p.do("upload "+logo, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{logo}))
	p.waitAnswer(n, "done")
	// The SVG is drawn: its image, painted on a canvas, covers most of the canvas.
	painted := eval[float64](p, `(async () => {
		const img = document.getElementById('img-svg');
		await img.decode();
		const c = document.createElement('canvas');
		c.width = 64; c.height = 64;
		const g = c.getContext('2d');
		g.drawImage(img, 0, 0, 64, 64);
		const px = g.getImageData(0, 0, 64, 64).data;
		let n = 0;
		for (let i = 3; i < px.length; i += 4) if (px[i] > 0) n++;
		return n / (64 * 64);
	})()`)
	if painted < 0.5 {
		t.Errorf("the SVG shown paints %.0f%% of its area, want most of it", painted*100)
	}
	for _, fact := range []string{"engine", "time", "input", "svg"} {
		if got := p.text(fmt.Sprintf(`[data-fact="%s"]`, fact)); got == "" {
			t.Errorf("the result does not show its %s", fact)
		}
	}
	if dl := eval[string](p, `document.getElementById('download').download`); !strings.HasSuffix(dl, ".svg") {
		t.Errorf("download name = %q, want a .svg", dl)
	}
	p.viewShot("02-traced")

	// Change parameters: the logo preset, then maxColors typed in; both reach the API.
	n = p.answers()
	p.choose("#preset", "logo")
	p.waitAnswer(n, "done")
	if got := p.text(`[data-fact="engine"]`); !strings.Contains(got, "tracecraft") || !strings.Contains(got, "preset logo") {
		t.Errorf("engine fact = %q, want tracecraft with preset logo", got)
	}
	n = p.answers()
	p.typeInto("#p-tracecraft-maxColors", "4")
	p.waitAnswer(n, "done")
	used := p.text("#used-json")
	curl := p.text("#curl")
	if !strings.Contains(used, `"maxColors": 4`) || !strings.Contains(used, `"tolerance": 0.4`) {
		t.Errorf("settings the engine used = %s, want maxColors 4 and the logo preset's tolerance 0.4", used)
	}
	if !strings.Contains(curl, `settings={"preset":"logo","tracecraft":{"maxColors":4}}`) || !strings.Contains(curl, "/api/vectorize") {
		t.Errorf("curl command = %s, want the settings sent", curl)
	}
	p.viewShot("03-parameter-changed")

	// A refused parameter: the API's detail shows beside the control.
	n = p.answers()
	p.typeInto("#p-tracecraft-maxColors", "999")
	p.waitAnswer(n, "error")
	if msg := p.text("#error"); !strings.Contains(msg, "tracecraft.maxColors") || !strings.Contains(msg, "999") {
		t.Errorf("error for maxColors 999 = %q, want the field and the value", msg)
	}
	if got := p.text(`.param[data-param="maxColors"].invalid .param-error`); got == "" {
		t.Error("the maxColors control is not marked with the API's message")
	}
	p.viewShot("04-invalid-parameter")
	n = p.answers()
	p.do("reset maxColors", chromedp.Click(chromedp.CSS(`.param[data-param="maxColors"] .reset`)))
	p.waitAnswer(n, "done")

	// A palette: colours typed into one field (a comma inside rgb() is the colour's)
	// are sent as a JSON array; a bad colour is marked with its index.
	n = p.answers()
	p.typeInto("#p-tracecraft-palette", "#1d3557, white, rgb(230, 57, 70)")
	p.waitAnswer(n, "done")
	if curl := p.text("#curl"); !strings.Contains(curl, `"palette":["#1d3557","white","rgb(230, 57, 70)"]`) {
		t.Errorf("curl command with a palette = %s, want the three colours as an array", curl)
	}
	if got := eval[int](p, `document.querySelectorAll('.param[data-param="palette"] .swatch').length`); got != 3 {
		t.Errorf("the palette shows %d swatches, want 3", got)
	}
	p.viewShot("04b-palette")
	n = p.answers()
	p.typeInto("#p-tracecraft-palette", "#1d3557, reddish")
	p.waitAnswer(n, "error")
	if got := p.text(`.param[data-param="palette"].invalid .param-error`); !strings.Contains(got, "item 1 must be a CSS colour") {
		t.Errorf("the palette control says %q, want item 1 marked", got)
	}
	n = p.answers()
	p.do("reset the palette", chromedp.Click(chromedp.CSS(`.param[data-param="palette"] .reset`)))
	p.waitAnswer(n, "done")

	// The quality score: asked for with the checkbox, shown among the facts.
	n = p.answers()
	p.do("ask for the quality score", chromedp.Click(chromedp.ID("quality")))
	p.waitAnswer(n, "done")
	if got := p.text(`[data-fact="quality"]`); !strings.Contains(got, "SSIM 0.") || !strings.Contains(got, "dB") {
		t.Errorf("quality fact = %q, want the SSIM and the PSNR", got)
	}
	n = p.answers()
	p.do("stop asking for it", chromedp.Click(chromedp.ID("quality")))
	p.waitAnswer(n, "done")

	// Swipe, zoom and pan: every view shares one zoom and position.
	p.do("swipe and zoom", chromedp.Click(chromedp.CSS(`input[name="mode"][value="swipe"]`)),
		chromedp.Click(chromedp.ID("zoom-in")), chromedp.Click(chromedp.ID("zoom-in")))
	box, err := chromedp.Run(p.ctx, chromedp.Dimensions(chromedp.CSS(".pane-overlay .viewport")))
	if err != nil {
		t.Fatal(err)
	}
	x, y := (box.Content[0]+box.Content[2])/2, (box.Content[1]+box.Content[5])/2
	before := eval[string](p, `document.getElementById('ov-svg').style.left`)
	p.do("drag to pan",
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x-60, y-40, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x-120, y-80, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x-120, y-80, chromedp.ButtonLeft))
	layout := eval[[]string](p, `[...document.querySelectorAll('.layer-img')].map(i => [i.style.left, i.style.top, i.style.width].join(' '))`)
	for _, l := range layout[1:] {
		if l != layout[0] {
			t.Errorf("views out of step: %v", layout)
			break
		}
	}
	if after := strings.Fields(layout[0])[0]; after == before {
		t.Errorf("dragging did not pan: left stayed %s", after)
	}
	if z := p.text("#zoom-level"); z == "" {
		t.Error("no zoom level shown")
	}
	p.viewShot("05-swipe-zoomed")
	p.do("toggle to the original", chromedp.Click(chromedp.CSS(`input[name="mode"][value="toggle"]`)), chromedp.Click(chromedp.ID("toggle-which")))
	if got := p.text("#overlay-caption"); got != "Showing the original" {
		t.Errorf("after toggling, the caption reads %q, want Showing the original", got)
	}
	if !eval[bool](p, `document.getElementById('ov-top').hidden`) {
		t.Error("after toggling to the original, the SVG layer is still shown")
	}
	p.viewShot("06-toggle-original")

	// An API key: a wrong one is refused in words; a valid one is kept in local storage,
	// runs on the keyed lane and stays out of the curl command.
	p.do("open the key field", chromedp.Click(chromedp.CSS(".key summary")))
	n = p.answers()
	p.typeInto("#api-key", "tc_not_a_key")
	p.do("trace with a wrong key", chromedp.Click(chromedp.ID("trace")))
	p.waitAnswer(n, "error")
	if msg := p.text("#error"); !strings.Contains(msg, "API key was refused") || !strings.Contains(msg, "401") {
		t.Errorf("error for a wrong key = %q, want it to say the key was refused", msg)
	}
	p.viewShot("07-wrong-key")
	key, errOut, code := tracecraft(t, nil, "keys", "create", "--name", "web", "--data-dir", h.dataDir)
	if code != 0 {
		t.Fatalf("keys create: %s", errOut)
	}
	key = strings.TrimSpace(key)
	n = p.answers()
	p.typeInto("#api-key", key)
	p.do("trace with the key", chromedp.Click(chromedp.ID("trace")))
	p.waitAnswer(n, "done")
	if lane := p.text(`[data-fact="lane"]`); lane != "keyed" {
		t.Errorf("with a key the lane is %q, want keyed", lane)
	}
	if stored := eval[string](p, `localStorage.getItem('tracecraft.apiKey') || ''`); stored != key {
		t.Errorf("local storage holds %q, want the key", stored)
	}
	if curl := p.text("#curl"); strings.Contains(curl, key) || !strings.Contains(curl, `-H "X-API-Key: $TRACECRAFT_API_KEY"`) {
		t.Errorf("curl command with a key = %s, want the key read from $TRACECRAFT_API_KEY, not written out", curl)
	}
	p.do("clear the key", chromedp.Evaluate[chromedp.Void](`(() => { const k = document.getElementById('api-key'); k.value = ''; k.dispatchEvent(new Event('input', {bubbles: true})) })()`))

	// A GIF: the API refuses it and the page says what to send instead.
	n = p.answers()
	p.do("upload a GIF", chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{gifFile}))
	p.waitAnswer(n, "error")
	if msg := p.text("#error"); !strings.Contains(msg, "GIF") || !strings.Contains(msg, "PNG") ||
		strings.Contains(msg, "null") || strings.Contains(msg, "undefined") {
		t.Errorf("error for a GIF = %q, want it to name GIF and the formats to send, in words", msg)
	}
	p.viewShot("08-gif-refused")

	// A narrow screen: nothing wider than the screen; the result comes before the
	// parameters.
	p.do("narrow screen", chromedp.EmulateViewport(390, 844))
	n = p.answers()
	p.do("upload again", chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{logo}))
	p.waitAnswer(n, "done")
	if w := eval[int](p, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("on a 390 px screen the page is %d px wide", w)
	}
	if !eval[bool](p, `document.querySelector('.result').getBoundingClientRect().top < document.querySelector('.params-card').getBoundingClientRect().top`) {
		t.Error("on a narrow screen the result comes after the parameters")
	}
	p.viewShot("09-narrow-top")
	p.do("scroll to the result", chromedp.Evaluate[chromedp.Void](`document.querySelector('.result').scrollIntoView()`))
	p.viewShot("10-narrow-result")
}

func TestWebPageExplainsABusyServiceAndAStoppedTrace(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	// busy has one worker and no waiting places, so one job held from here fills its
	// public lane; slow stops jobs after a second.
	busy := spawnHost(t, newPlugins(t, "testengine"), "", "--workers", "1", "--queue", "0")
	slow := spawnHost(t, newPlugins(t, "testengine"), "", "--workers", "1", "--job-timeout", "1s")
	busy.waitListening()
	slow.waitListening()
	logo := logoFile(t)
	p := openBrowser(t, browser)
	publicBusy := func() float64 {
		for _, l := range busy.get("/api/health").json["lanes"].([]any) {
			if l := l.(map[string]any); l["name"] == "public" {
				return l["busy"].(float64)
			}
		}
		t.Fatal("/api/health lists no public lane")
		return 0
	}

	// A full lane: the page says how long to wait and counts down.
	p.do("load the page", chromedp.Navigate(busy.url+"/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="ready"]`)))
	p.choose("#engine", "testengine")
	n := p.answers()
	p.do("upload "+logo, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{logo}))
	p.waitAnswer(n, "done")
	holdCtx, release := context.WithCancel(context.Background())
	defer release()
	held := make(chan struct{})
	small := testbin.SolidPNG(t, 4, 4, color.NRGBA{1, 2, 3, 255})
	go func() {
		defer close(held)
		req := busy.vectorizeRequest(small, `{"engine":"testengine","testengine":{"action":"sleep","ms":600000}}`)
		if resp, err := http.DefaultClient.Do(req.WithContext(holdCtx)); err == nil {
			resp.Body.Close()
		}
	}()
	if !testbin.Eventually(10*time.Second, func() bool { return publicBusy() == 1 }) {
		t.Fatal("the job holding the only worker never started")
	}
	n = p.answers()
	p.do("trace on a full lane", chromedp.Click(chromedp.ID("trace")))
	p.waitAnswer(n, "error")
	probe := busy.vectorize(small, `{"engine":"testengine"}`)
	wait := probe.header.Get("Retry-After")
	if probe.status != 429 || wait == "" {
		t.Fatalf("a request on the full lane from Go got %s with Retry-After %q, want 429 with a wait", probe, wait)
	}
	// The page was refused first, so it was told the first place to free, and the probe
	// the next one: no later than the probe's.
	title := p.text("#error .error-title")
	m := busyTitle.FindStringSubmatch(title)
	if m == nil {
		t.Errorf("error title on a full lane = %q, want %q with the host's Retry-After", title, "The service is busy: try again in N s.")
	} else if told, later := atoi(m[1]), atoi(wait); told < 1 || told > later {
		t.Errorf("error title on a full lane = %q: want a wait of 1 s to the %d s the host told a later client", title, later)
	}
	if msg := p.text("#error"); !strings.Contains(msg, "Every place in the queue is taken") ||
		!strings.Contains(msg, "Press Trace again") || !strings.Contains(msg, "queue_full") || !strings.Contains(msg, "HTTP 429") {
		t.Errorf("error on a full lane = %q, want the queue, what to do, the code and the status", msg)
	}
	if status := p.text("#status"); !strings.Contains(status, "previous trace") {
		t.Errorf("status on a full lane = %q, want it to say the SVG shown is the previous one", status)
	}
	p.viewShot("11-busy-429")
	secs := atoi(wait)
	if !testbin.Eventually(time.Duration(secs+3)*time.Second, func() bool {
		return p.text("#error .error-title") == "The service was busy: you can try again now."
	}) {
		t.Errorf("%d s after a 429 with Retry-After %s the title reads %q, want that one can try again now", secs+3, wait, p.text("#error .error-title"))
	}
	p.viewShot("12-busy-wait-over")
	release()
	<-held
	if !testbin.Eventually(10*time.Second, func() bool { return publicBusy() == 0 }) {
		t.Fatal("the held job did not end when its client went away")
	}
	n = p.answers()
	p.do("trace again", chromedp.Click(chromedp.ID("trace")))
	p.waitAnswer(n, "done")
	if !eval[bool](p, `document.getElementById('error').hidden`) {
		t.Errorf("after a trace that worked the error still shows: %q", p.text("#error"))
	}

	// A job past --job-timeout: the host kills the engine and the page says the trace
	// took too long and what to change.
	p.do("load the page", chromedp.Navigate(slow.url+"/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="ready"]`)))
	p.choose("#engine", "testengine")
	p.choose("#p-testengine-action", "hang")
	p.typeInto("#p-testengine-ms", "60000")
	n = p.answers()
	start := time.Now()
	p.do("upload "+logo, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{logo}))
	p.waitAnswer(n, "error")
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the page waited %v for a job stopped after 1 s", took)
	}
	if title := p.text("#error .error-title"); title != "The trace took too long and was stopped." {
		t.Errorf("error title for a job past the time limit = %q", title)
	}
	if msg := p.text("#error"); !strings.Contains(msg, "time limit") || !strings.Contains(msg, "smaller image") ||
		!strings.Contains(msg, "job_timeout") || !strings.Contains(msg, "HTTP 503") ||
		strings.Contains(msg, "null") || strings.Contains(msg, "undefined") {
		t.Errorf("error for a job past the time limit = %q, want the limit, what to change, the code and the status, in words", msg)
	}
	p.viewShot("13-job-timeout-503")
	// The killed engine is replaced: the next trace works.
	n = p.answers()
	p.choose("#p-testengine-action", "ok")
	p.waitAnswer(n, "done")
}
