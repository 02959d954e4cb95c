package lanes

import (
	"container/heap"
	"math"
	"sort"
	"time"
)

// This file holds the pure parts of a lane's Retry-After: the forecast of a job's time
// from recent jobs, the schedule of the work ahead on the workers, and the book of
// retries the lane has asked for. Lane feeds them its state under its lock.

// minJobTime is the least time a forecast gives a job: the host's own work per job
// (upload, checks, the engine call) is a few milliseconds whatever the image.
const minJobTime = 5 * time.Millisecond

// margin is what a forecast adds to the work ahead: a client that comes back early is
// refused again, one that comes a little late only waits a little, so the forecast errs
// late. Job times on a busy machine vary by tens of percent.
const margin = 1.25

// jobTimes forecasts how long a job will hold a worker when every worker of the lane is
// busy (a lane refuses jobs only then), from the jobs that finished: per kind (the
// engine asked for), the time per pixel, and over all jobs, the time of a job (for a job
// of unknown kind or size); each a moving average over roughly the last five jobs. Jobs
// that ran while every worker was busy ("full") are kept apart from the others: on a
// machine with fewer spare cores than workers, and with engines that use several cores,
// a job takes longer when the others run too. Until a kind has been seen under full load,
// its time alone is scaled by the slowdown, learned from the kinds seen both ways.
type jobTimes struct {
	kinds map[string]*kindTimes
	// alone and full are the average job times; full is zero until a job ran full.
	alone, full time.Duration
	slowdown    float64
}

// kindTimes are a kind's times per pixel in ns, alone and full; zero: none yet.
type kindTimes struct{ alone, full float64 }

// newJobTimes returns a model whose first forecast is initial for a job alone, and
// slowdown times that under full load.
func newJobTimes(initial time.Duration, slowdown float64) *jobTimes {
	return &jobTimes{kinds: map[string]*kindTimes{}, alone: initial, slowdown: max(1, slowdown)}
}

// ema moves the average avg a fifth of the way to x; a zero avg becomes x.
func ema(avg, x float64) float64 {
	if avg == 0 {
		return x
	}
	return avg + (x-avg)/5
}

// observe adds a job of kind on pixels pixels that took took, full if every worker of
// the lane was busy while it ran.
func (m *jobTimes) observe(kind string, pixels int64, took time.Duration, full bool) {
	if full {
		m.full = time.Duration(ema(float64(m.full), float64(took)))
	} else {
		m.alone = time.Duration(ema(float64(m.alone), float64(took)))
	}
	if pixels <= 0 {
		return
	}
	k := m.kinds[kind]
	if k == nil {
		k = &kindTimes{}
		m.kinds[kind] = k
	}
	rate := float64(took) / float64(pixels)
	if full {
		if k.alone > 0 {
			m.slowdown = min(16, max(1, ema(m.slowdown, rate/k.alone)))
		}
		k.full = ema(k.full, rate)
	} else {
		if k.full > 0 {
			m.slowdown = min(16, max(1, ema(m.slowdown, k.full/rate)))
		}
		k.alone = ema(k.alone, rate)
	}
}

// predict forecasts the time of a job of kind on pixels pixels under full load: by its
// kind's time per pixel when the kind has been seen and the size is known, else the
// average job's.
func (m *jobTimes) predict(kind string, pixels int64) time.Duration {
	k := m.kinds[kind]
	var d time.Duration
	switch {
	case k == nil || pixels <= 0:
		d = m.full
		if d == 0 {
			d = time.Duration(float64(m.alone) * m.slowdown)
		}
	case k.full > 0:
		d = time.Duration(k.full * float64(pixels))
	default:
		d = time.Duration(k.alone * float64(pixels) * m.slowdown)
	}
	return max(minJobTime, d)
}

// remaining forecasts the rest of a running job predicted to take predicted that has
// run for elapsed. A job past its forecast is taken to need a tenth of it more: it is
// late, but nothing says by how much.
func remaining(predicted, elapsed time.Duration) time.Duration {
	return max(predicted-elapsed, predicted/10)
}

// schedule plays the work ahead on workers workers, whose busy ones need running more
// (len(running) <= workers; the others are idle), taking the jobs of ahead in order,
// each on the first worker free. It returns when each job of ahead starts, and when the
// jobs finish, running ones included, in ascending order: times from now.
func schedule(workers int, running, ahead []time.Duration) (starts, finishes []time.Duration) {
	free := make(durationHeap, 0, workers)
	for _, r := range running {
		free = append(free, r)
	}
	for len(free) < workers {
		free = append(free, 0)
	}
	heap.Init(&free)
	finishes = append(finishes, running...)
	starts = make([]time.Duration, len(ahead))
	for i, d := range ahead {
		at := heap.Pop(&free).(time.Duration)
		starts[i] = at
		finishes = append(finishes, at+d)
		heap.Push(&free, at+d)
	}
	sort.Slice(finishes, func(i, j int) bool { return finishes[i] < finishes[j] })
	return starts, finishes
}

type durationHeap []time.Duration

func (h durationHeap) Len() int           { return len(h) }
func (h durationHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h durationHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *durationHeap) Push(x any)        { *h = append(*h, x.(time.Duration)) }
func (h *durationHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// seconds rounds a wait up to the whole seconds of a Retry-After header, 1 to 3600: a
// client that comes back a little late finds its place free; one that comes early
// does not.
func seconds(wait time.Duration) int {
	return max(1, min(3600, int(math.Ceil(wait.Seconds()))))
}

// Retries the lane asked for: each refusal tells its client when a place should be free
// for it, and counts the place as taken until the client comes back for it or is long
// overdue. Without this book, every client refused at about the same time would be
// told the same time, and all but one refused again when they come back.

// promiseSlack is how early a job may be admitted and still be taken for the retry of
// a refused client; promiseExpiry is how late a client may come back before its place
// is given up.
const (
	promiseSlack  = time.Second
	promiseExpiry = 2 * time.Second
)

// promise is a retry the lane asked a client of key for, at due.
type promise struct {
	due time.Time
	key string
}

// promises are the retries outstanding, by due time.
type promises []promise

// add records a retry of key at due.
func (ps *promises) add(key string, due time.Time) {
	i := sort.Search(len(*ps), func(i int) bool { return (*ps)[i].due.After(due) })
	*ps = append(*ps, promise{})
	copy((*ps)[i+1:], (*ps)[i:])
	(*ps)[i] = promise{due: due, key: key}
}

// expire forgets the retries overdue at now by more than promiseExpiry.
func (ps *promises) expire(now time.Time) {
	n := 0
	for n < len(*ps) && now.Sub((*ps)[n].due) > promiseExpiry {
		n++
	}
	*ps = (*ps)[n:]
}

// claim takes the earliest retry due by now (within promiseSlack), preferring one of
// key: a job admitted now is likely that retry.
func (ps *promises) claim(key string, now time.Time) {
	first := -1
	for i, p := range *ps {
		if p.due.Sub(now) > promiseSlack {
			break
		}
		if p.key == key {
			first = i
			break
		}
		if first < 0 {
			first = i
		}
	}
	if first >= 0 {
		*ps = append((*ps)[:first], (*ps)[first+1:]...)
	}
}

// of counts the retries of key.
func (ps promises) of(key string) int {
	n := 0
	for _, p := range ps {
		if p.key == key {
			n++
		}
	}
	return n
}
