package postgres

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// errClosed is returned by calls on a closed Store.
var errClosed = errors.New("postgres: store is closed")

// pingAfter is how long a connection may sit idle before it is pinged on its next use. A
// connection idle for a while may have been cut (the server restarted, a proxy or
// firewall dropped it); pinging it first costs one round trip and means the first request
// after a database outage does not fail on a dead connection. A connection in steady use
// is not pinged.
const pingAfter = time.Second

// pool is a small connection pool over pgx.Conn: at most cap(slots) connections, opened
// on demand and kept while healthy. (pgxpool, and the stdlib driver that imports it, need
// a module go.sum does not list; the store needs nothing more than this.)
type pool struct {
	cfg *pgx.ConnConfig
	// slots holds one token per connection in use; acquiring waits for a free slot.
	slots chan struct{}

	mu     sync.Mutex
	idle   []idleConn
	closed bool
}

// idleConn is a pooled connection and when it was released.
type idleConn struct {
	c     *pgx.Conn
	since time.Time
}

func newPool(cfg *pgx.ConnConfig, size int) *pool {
	return &pool{cfg: cfg, slots: make(chan struct{}, size)}
}

// acquire returns a connection for the caller's exclusive use until release.
func (p *pool) acquire(ctx context.Context) (*pgx.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			<-p.slots
			return nil, errClosed
		}
		n := len(p.idle)
		if n == 0 {
			p.mu.Unlock()
			break
		}
		ic := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		if time.Since(ic.since) < pingAfter || ic.c.Ping(ctx) == nil {
			return ic.c, nil
		}
		closeConn(ic.c)
		if err := ctx.Err(); err != nil {
			<-p.slots
			return nil, err
		}
	}
	c, err := pgx.ConnectConfig(ctx, p.cfg)
	if err != nil {
		<-p.slots
		return nil, err
	}
	return c, nil
}

// release returns c to the pool, or closes it if it broke (a cancelled context closes a
// pgx connection mid-query) or was left inside a transaction.
func (p *pool) release(c *pgx.Conn) {
	defer func() { <-p.slots }()
	healthy := !c.IsClosed() && !c.PgConn().IsBusy() && c.PgConn().TxStatus() == 'I'
	p.mu.Lock()
	if healthy && !p.closed {
		p.idle = append(p.idle, idleConn{c, time.Now()})
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	closeConn(c)
}

// with runs fn on a pooled connection.
func (p *pool) with(ctx context.Context, fn func(*pgx.Conn) error) error {
	c, err := p.acquire(ctx)
	if err != nil {
		return err
	}
	defer p.release(c)
	return fn(c)
}

// close closes the idle connections; those in use close when released.
func (p *pool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, ic := range idle {
		closeConn(ic.c)
	}
}

func closeConn(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c.Close(ctx)
}
