package api

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
	"github.com/tracecraft/tracecraft/host/internal/settings"
	"github.com/tracecraft/tracecraft/sdk"
)

// Budget bounds the bytes of uploads the host holds at once, received or being received,
// so that many large uploads arriving together cannot exhaust its memory: a request
// that does not fit is answered 429 before its body is read.
type Budget struct {
	mu    sync.Mutex
	limit int64
	used  int64
}

// NewBudget returns a budget of limit bytes.
func NewBudget(limit int64) *Budget { return &Budget{limit: limit} }

// TryTake reserves n bytes if they fit.
func (b *Budget) TryTake(n int64) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit && b.used > 0 {
		return false
	}
	b.used += n
	return true
}

// Give returns n bytes.
func (b *Budget) Give(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// multipartSlack is what a multipart body may carry beyond the image and the settings:
// boundaries, part headers, small extra fields.
const multipartSlack = 1 << 20

// ImageFiles keeps the sdk.ImageFiles that uploads are read into, for reuse: an image is
// read from the request straight into a file that the engine process maps, with no copy
// in between, and a reused file keeps its memory pages from one upload to the next.
type ImageFiles struct {
	capacity int64
	free     chan *sdk.ImageFile
}

// NewImageFiles returns a pool of files for images of up to capacity bytes that keeps
// at most idle files unused.
func NewImageFiles(capacity int64, idle int) *ImageFiles {
	return &ImageFiles{capacity: capacity, free: make(chan *sdk.ImageFile, idle)}
}

// get returns an unused file, or nil if none can be made (the upload is then read into
// memory).
func (p *ImageFiles) get() *sdk.ImageFile {
	select {
	case f := <-p.free:
		return f
	default:
	}
	f, err := sdk.NewImageFile(p.capacity)
	if err != nil {
		return nil
	}
	return f
}

// put takes back a file no call uses any more.
func (p *ImageFiles) put(f *sdk.ImageFile) {
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

// upload is a parsed tracing request body. When file is set, image is its content, and
// the file goes back to the pool once no job uses it.
type upload struct {
	image    []byte
	file     *sdk.ImageFile
	hasImage bool
	settings []byte
}

// readUpload reads the multipart body with hard caps: the image to maxImage bytes, the
// settings to settings.MaxBytes, the whole body to their sum plus slack. It stops
// reading at the first cap exceeded. Unknown fields are read and ignored. The image goes
// into a file from files when there is one; the caller gives the upload's file back to
// files, also after an error.
func readUpload(w http.ResponseWriter, r *http.Request, maxImage int64, files *ImageFiles) (upload, error) {
	var up upload
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" || params["boundary"] == "" {
		return up, fault.New(fault.MissingImage,
			"send the image as a multipart/form-data request with a file field named image (and optionally a settings field)")
	}
	maxBody := maxBody(maxImage)
	if r.ContentLength > maxBody {
		return up, tooLarge(maxImage, r.ContentLength)
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	// A larger read buffer than the multipart reader's own 4 KiB means fewer reads and
	// boundary scans for a multi-megabyte image.
	mr := multipart.NewReader(bufio.NewReaderSize(r.Body, 64<<10), params["boundary"])
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return up, bodyError(err, maxImage)
		}
		switch part.FormName() {
		case "image":
			if up.hasImage {
				part.Close()
				return up, fault.New(fault.InvalidRequest, "the request has more than one image field; send one image per request")
			}
			up.hasImage = true
			if files != nil && files.capacity >= maxImage {
				up.file = files.get()
			}
			var over bool
			var err error
			if up.file != nil {
				over, err = up.file.Fill(part)
				up.image = up.file.Bytes()
			} else {
				up.image, over, err = readCapped(part, maxImage)
			}
			if err != nil {
				return up, bodyError(err, maxImage)
			}
			if over {
				return up, tooLarge(maxImage, -1)
			}
		case "settings":
			data, over, err := readCapped(part, settings.MaxBytes)
			if err != nil {
				return up, bodyError(err, maxImage)
			}
			if over {
				return up, &fault.Error{Code: fault.InvalidSettings,
					Message: fmt.Sprintf("the settings field is larger than %d KiB", settings.MaxBytes>>10),
					Details: []fault.Detail{{Field: "settings", Message: fmt.Sprintf("must be at most %d bytes", settings.MaxBytes)}}}
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
	last := 0
	for {
		c := chunkPool.Get().(*[]byte)
		chunks = append(chunks, c)
		n, err := io.ReadFull(r, *c)
		total += int64(n)
		last = n
		if total > limit {
			return nil, true, nil
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, false, err
		}
	}
	data = make([]byte, total)
	off := 0
	for i, c := range chunks {
		n := readChunk
		if i == len(chunks)-1 {
			n = last
		}
		off += copy(data[off:], (*c)[:n])
	}
	return data, false, nil
}

func bodyError(err error, maxImage int64) error {
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
