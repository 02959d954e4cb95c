package tracing

import "time"

// UploadPace bounds how slowly a request body may arrive, so that slow or idle
// connections cannot hold the host's connections and upload budget for long.
type UploadPace struct {
	// MinRate is the least average rate, in bytes per second, at which a body must
	// arrive once Grace has passed: by time Grace + n/MinRate after the first read, n
	// bytes must have come. 0 sets no minimum.
	MinRate int64
	// Grace is the time a body has before MinRate counts (a client's slow start).
	Grace time.Duration
	// Limit is the HTTP server's ReadTimeout, which bounds a whole request, for the
	// message of a body cut off by it; 0 if there is none.
	Limit time.Duration
}

// Due is when n bytes must have come of a body first read at first. It needs MinRate > 0.
func (pace UploadPace) Due(first time.Time, n int64) time.Time {
	return first.Add(pace.Grace + time.Duration(float64(n)/float64(pace.MinRate)*float64(time.Second)))
}

// latest is the latest an upload admitted at start, announcing size bytes (-1:
// unknown), of which got had come by the time at, still holds its place: by then the
// whole body has come, or the pace or the request time limit has cut it off. The zero
// time means no bound is known.
func (pace UploadPace) latest(start time.Time, size, got int64, at time.Time) time.Time {
	var end time.Time
	if pace.Limit > 0 {
		end = start.Add(pace.Limit)
	}
	if pace.MinRate > 0 {
		// A body of unknown size is cut off when no more comes; the pace counts from the
		// first read, which is no earlier than its admission.
		n := got + 1
		if size >= 0 {
			n = size
		}
		if first := pace.Due(start, n); end.IsZero() || first.Before(end) {
			end = first
		}
	}
	return end
}
