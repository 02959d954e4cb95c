package engines

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Debounce is how long the folder must stay quiet after a change before it is
// rescanned, so that a binary still being copied is loaded once, when complete.
const Debounce = 400 * time.Millisecond

// Watch rescans the plugins folder whenever an engine file in it changes, and on every
// value received from rescan (the host sends one on SIGHUP), until ctx ends. It also
// reaps idle processes once a minute. Errors of the watcher are logged; rescans on
// rescan keep working without it.
func (r *Registry) Watch(ctx context.Context, rescan <-chan struct{}) {
	var events <-chan fsnotify.Event
	var errs <-chan error
	w, err := fsnotify.NewWatcher()
	if err == nil {
		err = w.Add(r.cfg.Dir)
	}
	if err != nil {
		r.logger.Error("cannot watch the plugins folder; send SIGHUP to reload", "dir", r.cfg.Dir, "error", err)
	} else {
		defer w.Close()
		events, errs = w.Events, w.Errors
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	reap := time.NewTicker(time.Minute)
	defer reap.Stop()
	scan := func(why string) {
		n, err := r.Reload(ctx, nil)
		if err != nil {
			r.logger.Error("rescan failed", "why", why, "error", err)
			return
		}
		r.logger.Debug("plugins folder rescanned", "why", why, "loaded", n)
	}
	for {
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case ev := <-events:
			if strings.HasPrefix(filepath.Base(ev.Name), FilePrefix) {
				timer.Reset(Debounce)
			}
		case err := <-errs:
			r.logger.Warn("plugins folder watcher", "error", err)
		case <-timer.C:
			scan("file change")
		case <-rescan:
			scan("signal")
		case <-reap.C:
			r.Reap()
		}
	}
}
