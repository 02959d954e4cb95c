package api

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
	"github.com/tracecraft/tracecraft/host/internal/settings"
	"github.com/tracecraft/tracecraft/host/internal/tracing"
	"github.com/tracecraft/tracecraft/sdk/pluginhost"
)

// multipartSlack is what a multipart body may carry beyond the image and the settings:
// boundaries, part headers, small extra fields.
const multipartSlack = 1 << 20

// ImageFiles keeps the pluginhost.ImageFiles that uploads are read into, for reuse: a request
// body is read straight into a file that the engine process maps, the image is left
// where it landed, and a reused file keeps its memory pages from one upload to the next.
type ImageFiles struct {
	capacity int64
	free     chan *pluginhost.ImageFile
}

// NewImageFiles returns a pool of files for the bodies of requests with images of up to
// maxImage bytes that keeps at most idle files unused.
func NewImageFiles(maxImage int64, idle int) *ImageFiles {
	return &ImageFiles{capacity: maxBody(maxImage), free: make(chan *pluginhost.ImageFile, idle)}
}

// get returns an unused file, or nil if none can be made (the upload is then read into
// memory).
func (p *ImageFiles) get() *pluginhost.ImageFile {
	select {
	case f := <-p.free:
		return f
	default:
	}
	f, err := pluginhost.NewImageFile(p.capacity)
	if err != nil {
		return nil
	}
	return f
}

// put takes back a file no call uses any more.
func (p *ImageFiles) put(f *pluginhost.ImageFile) {
	if f == nil {
		return
	}
	if p == nil {
		f.Close()
		return
	}
	select {
	case p.free <- f:
	default:
		f.Close()
	}
}

// Close releases the unused files.
func (p *ImageFiles) Close() {
	for {
		select {
		case f := <-p.free:
			f.Close()
		default:
			return
		}
	}
}

// upload is a parsed tracing request body. When file is set, image is the part of it
// the file selects, for the engine to map. held is the pool's file the body was read
// into, which goes back to the pool once no job uses it.
type upload struct {
	image    []byte
	file     *pluginhost.ImageFile
	held     *pluginhost.ImageFile
	hasImage bool
	settings []byte
}

// readUpload reads the multipart body with hard caps: the image to maxImage bytes, the
// settings to settings.MaxBytes, the whole body to their sum plus slack. Unknown fields
// are ignored. With a file from files, the whole body is read into it and taken apart
// in place, so the image is copied once, from the socket into memory the engine process
// maps; the caller gives the upload's held file back to files, also after an error. Without
// one, the body is read as a stream into memory. body is r's body, perhaps counted; it is
// not read when r's headers already refuse it.
func readUpload(w http.ResponseWriter, r *http.Request, body io.ReadCloser, maxImage int64, files *ImageFiles) (upload, error) {
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" || params["boundary"] == "" {
		return upload{}, fault.New(fault.MissingImage,
			"send the image as a multipart/form-data request with a file field named image (and optionally a settings field)")
	}
	maxBody := maxBody(maxImage)
	if r.ContentLength > maxBody {
		return upload{}, tooLarge(maxImage, r.ContentLength)
	}
	capped := http.MaxBytesReader(w, body, maxBody)
	if files != nil && files.capacity >= maxBody {
		if f := files.get(); f != nil {
			return readInPlace(capped, params["boundary"], maxImage, f)
		}
	}
	return readStream(capped, params["boundary"], maxImage)
}

// readInPlace reads the whole body into f and finds its fields there.
func readInPlace(body io.Reader, boundary string, maxImage int64, f *pluginhost.ImageFile) (upload, error) {
	up := upload{held: f}
	found := newDelimiters(body, boundary)
	if found != nil {
		body = found
	}
	over, err := f.Fill(body)
	if err != nil {
		return up, bodyError(err, maxImage)
	}
	if over {
		return up, tooLarge(maxImage, -1)
	}
	data := f.Bytes()
	parts, err := parseForm(data, boundary, found)
	switch {
	case errors.Is(err, errFormUnusual):
		// The image is copied out of the body into memory.
		stream, err := readStream(bytes.NewReader(data), boundary, maxImage)
		stream.held = f
		return stream, err
	case err != nil:
		return up, tooManyFields()
	}
	image, hasSettings := -1, false
	for i, p := range parts {
		switch p.name {
		case "image":
			if image >= 0 {
				return up, duplicateImage()
			}
			image = i
			if int64(p.len) > maxImage {
				return up, tooLarge(maxImage, -1)
			}
		case "settings":
			if hasSettings {
				return up, duplicateSettings()
			}
			hasSettings = true
			if p.len > settings.MaxBytes {
				return up, settingsTooLarge()
			}
			up.settings = bytes.Clone(data[p.off : p.off+p.len])
		}
	}
	if image >= 0 {
		p := parts[image]
		if err := f.Select(int64(p.off), int64(p.len)); err != nil {
			return up, bodyError(err, maxImage)
		}
		up.image, up.file, up.hasImage = f.Bytes(), f, true
	}
	return up, nil
}

// readStream reads the body part by part, stopping at the first cap exceeded.
func readStream(body io.Reader, boundary string, maxImage int64) (upload, error) {
	var up upload
	hasSettings := false
	// A larger read buffer than the multipart reader's own 4 KiB means fewer reads and
	// boundary scans for a multi-megabyte image.
	mr := multipart.NewReader(bufio.NewReaderSize(body, 64<<10), boundary)
	for fields := 0; ; fields++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return up, bodyError(err, maxImage)
		}
		if fields == maxFormParts {
			return up, tooManyFields()
		}
		switch part.FormName() {
		case "image":
			if up.hasImage {
				return up, duplicateImage()
			}
			up.hasImage = true
			var over bool
			up.image, over, err = readCapped(part, maxImage)
			if err != nil {
				return up, bodyError(err, maxImage)
			}
			if over {
				return up, tooLarge(maxImage, -1)
			}
		case "settings":
			if hasSettings {
				return up, duplicateSettings()
			}
			hasSettings = true
			data, over, err := readCapped(part, settings.MaxBytes)
			if err != nil {
				return up, bodyError(err, maxImage)
			}
			if over {
				return up, settingsTooLarge()
			}
			up.settings = data
		default:
			if _, err := io.Copy(io.Discard, part); err != nil {
				return up, bodyError(err, maxImage)
			}
		}
		part.Close()
	}
	return up, nil
}

func duplicateImage() error {
	return fault.New(fault.InvalidRequest, "the request has more than one image field; send one image per request")
}

func duplicateSettings() error {
	return fault.New(fault.InvalidRequest, "the request has more than one settings field; send all settings in one JSON object in a single settings field")
}

func tooManyFields() error {
	return fault.New(fault.InvalidRequest, "the request has more than %d fields; send an image field and optionally a settings field", maxFormParts)
}

func settingsTooLarge() error {
	return &fault.Error{Code: fault.InvalidSettings,
		Message: fmt.Sprintf("the settings field is larger than %d KiB", settings.MaxBytes>>10),
		Details: []fault.Detail{{Field: "settings", Message: fmt.Sprintf("must be at most %d bytes", settings.MaxBytes)}}}
}

// readChunk is the unit in which uploads are read: the image is then copied once into a
// slice of its exact size, so a queued upload holds no spare capacity.
const readChunk = 256 << 10

var chunkPool = sync.Pool{New: func() any { b := make([]byte, readChunk); return &b }}

// readCapped reads r to its end, or to limit+1 bytes, reporting whether it went over.
func readCapped(r io.Reader, limit int64) (data []byte, over bool, err error) {
	var chunks []*[]byte
	var total int64
	defer func() {
		for _, c := range chunks {
			chunkPool.Put(c)
		}
	}()
	for {
		c := chunkPool.Get().(*[]byte)
		chunks = append(chunks, c)
		// Not io.ReadFull: it reports a short last chunk as io.ErrUnexpectedEOF, which
		// a multipart part also returns when the body ends before its boundary.
		n := 0
		var err error
		for n < len(*c) && err == nil {
			var m int
			m, err = r.Read((*c)[n:])
			n += m
		}
		total += int64(n)
		if total > limit {
			return nil, true, nil
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, err
		}
	}
	data = make([]byte, total)
	off := 0
	for _, c := range chunks {
		off += copy(data[off:], *c)
	}
	return data, false, nil
}

func bodyError(err error, maxImage int64) error {
	var fe *fault.Error
	if errors.As(err, &fe) {
		return fe // the receiver's: the budget is spent, or the body came too slowly
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge(maxImage, -1)
	}
	if strings.Contains(err.Error(), "multipart") {
		return fault.Wrap(err, fault.InvalidRequest, "the multipart body is malformed: %v", err)
	}
	return fault.Wrap(err, fault.InvalidRequest, "the request body could not be read completely; send it again")
}

func tooLarge(maxImage, size int64) error {
	if size > 0 {
		return fault.New(fault.ImageTooLarge, "the request is %s MB; images may be at most %s MB",
			imagecheck.Megabytes(size, true), imagecheck.Megabytes(maxImage, false))
	}
	return fault.New(fault.ImageTooLarge, "the image is larger than %s MB, the most the service accepts; send a smaller file",
		imagecheck.Megabytes(maxImage, false))
}

// maxBody is the most a tracing request's body may hold: the image, the settings and
// the multipart framing.
func maxBody(maxImage int64) int64 { return maxImage + settings.MaxBytes + multipartSlack }

// receiver reads a request body as it arrives: it reserves the upload budget a step
// (tracing.HoldStep) ahead of the bytes received, never more than the Content-Length
// announces, and a watchdog cuts off a body that falls behind the pace (the
// connection's read deadline is set to now, so the read waiting for it fails), which
// ends in a fault.UploadTooSlow error instead of holding the connection. The watchdog
// is one timer, set for when the bytes received so far stop being enough: a body that
// keeps the pace costs no work per read. Errors are sticky: once one is returned, every
// Read returns it.
type receiver struct {
	body io.Reader
	// hold reserves upload budget (tracing.Request.Hold).
	hold func(n int64) error
	rc   *http.ResponseController
	pace tracing.UploadPace
	// expect is the Content-Length, or -1 when unknown.
	expect int64
	held   int64
	err    error

	// mu guards what the watchdog's timer reads and writes.
	mu       sync.Mutex
	first    time.Time
	received int64
	timer    *time.Timer
	// late is set by the watchdog when it cut the body off; over when the body has
	// been read or has failed, and the watchdog has nothing left to watch.
	late, over bool
}

// newReceiver returns a receiver of r's body (perhaps counted) that reserves budget with
// hold.
func newReceiver(w http.ResponseWriter, r *http.Request, body io.Reader, hold func(int64) error, pace tracing.UploadPace) *receiver {
	return &receiver{body: body, hold: hold, rc: http.NewResponseController(w), pace: pace, expect: r.ContentLength}
}

func (rv *receiver) Read(p []byte) (int, error) {
	if rv.err != nil {
		return 0, rv.err
	}
	bounded := rv.expect < 0 || rv.held < rv.expect
	if rv.received == rv.held && bounded {
		step := int64(tracing.HoldStep)
		if rv.expect >= 0 {
			step = min(step, rv.expect-rv.held)
		}
		if err := rv.hold(step); err != nil {
			rv.fail(err)
			return 0, err
		}
		rv.held += step
	}
	if room := rv.held - rv.received; bounded && room < int64(len(p)) {
		// No more than the reserved bytes land; past the Content-Length none can.
		p = p[:room]
	}
	if rv.timer == nil && rv.pace.MinRate > 0 {
		rv.mu.Lock()
		rv.first = time.Now()
		rv.timer = time.AfterFunc(time.Until(rv.pace.Due(rv.first, 1)), rv.watch)
		rv.mu.Unlock()
	}
	n, err := rv.body.Read(p)
	rv.mu.Lock()
	rv.received += int64(n)
	late := rv.late
	rv.mu.Unlock()
	switch {
	case late || errors.Is(err, os.ErrDeadlineExceeded):
		// Cut off by the watchdog (even if these were the last bytes: the deadline
		// has passed, and net/http would take the connection for gone), or by the
		// server's read timeout.
		rv.fail(rv.tooSlow(late))
		return n, rv.err
	case err != nil:
		rv.stop()
	}
	return n, err
}

// watch runs when the body received so far stops being enough for the pace: it cuts the
// body off if nothing more has come, and otherwise waits for when what has come stops
// being enough.
func (rv *receiver) watch() {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if rv.over {
		return
	}
	if wait := time.Until(rv.pace.Due(rv.first, rv.received+1)); wait > 0 {
		rv.timer.Reset(wait)
		return
	}
	rv.late = true
	_ = rv.rc.SetReadDeadline(time.Now())
}

// stop ends the watch: the body has been read, or reading it failed.
func (rv *receiver) stop() {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	rv.over = true
	if rv.timer != nil {
		rv.timer.Stop()
	}
}

// fail makes err the receiver's sticky error and ends the watch.
func (rv *receiver) fail(err error) {
	rv.err = err
	rv.stop()
}

// Close ends the watch; the request's body is net/http's to close.
func (rv *receiver) Close() error {
	rv.stop()
	return nil
}

// unread bounds the wait for a body that a refusal leaves unread: net/http reads and
// discards up to 256 KiB of it before answering, so that a client that sends its whole
// body before reading the answer gets it; one that sends nothing is answered when the
// grace has passed, not when the request's time limit has.
func unread(w http.ResponseWriter, pace tracing.UploadPace) {
	if pace.MinRate > 0 {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(pace.Grace))
	}
}

// tooSlow is the error of a body cut off by the watchdog (late) or the read timeout.
func (rv *receiver) tooSlow(late bool) error {
	rv.mu.Lock()
	first, received := rv.first, rv.received
	rv.mu.Unlock()
	if !late {
		return fault.New(fault.UploadTooSlow, "the upload did not arrive within %s; send it again over a faster connection, or send a smaller image", rv.pace.Limit)
	}
	return fault.New(fault.UploadTooSlow, "the upload arrived slower than %s per second (%s in %.1f s) after the first %s; send it again over a faster connection, or send a smaller image",
		bytesText(rv.pace.MinRate), bytesText(received), time.Since(first).Seconds(), rv.pace.Grace)
}

// bytesText writes n bytes for a person: "16 KiB", "1.5 MiB", "300 bytes".
func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return strings.TrimSuffix(strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64), ".0") + " MiB"
	case n >= 1<<10:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
