package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/auth"
	"github.com/tracecraft/tracecraft/host/internal/store"
)

const keysUsage = `usage:
  tracecraft keys create --name NAME [--data-dir DIR] [--db URL]
  tracecraft keys list [--data-dir DIR] [--db URL]
  tracecraft keys revoke NAME [--data-dir DIR] [--db URL]
`

// keys runs the key administration commands. They work on the same store the running
// servers use (--db, or SQLite in --data-dir); a server looks keys up on every request,
// so a revoke holds from the next request on every host sharing the store.
func keys(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, keysUsage)
		return errUsage
	}
	var c common
	var name string
	sub := args[0]
	fs := newFlags("keys "+sub, stderr)
	c.storeFlags(fs)
	switch sub {
	case "create":
		fs.StringVar(&name, "name", "", "the key's unique name, such as the client it is for")
	case "list", "revoke":
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, keysUsage)
		return nil
	default:
		fmt.Fprintf(stderr, "tracecraft keys: unknown command %q\n\n%s", sub, keysUsage)
		return errUsage
	}
	pos, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	switch {
	case sub == "revoke" && len(pos) == 1:
		name = pos[0]
	case sub == "create" && name == "" || sub == "revoke" || len(pos) > 0:
		fmt.Fprint(stderr, keysUsage)
		return errUsage
	}

	st, err := store.Open(ctx, c.db, c.dataDir)
	if err != nil {
		return err
	}
	defer st.Close()
	k := &auth.Keys{Store: st}

	switch sub {
	case "create":
		plain, _, err := k.Create(ctx, name)
		if errors.Is(err, store.ErrNameTaken) {
			return fmt.Errorf("a key named %q exists already; choose another name", name)
		}
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, plain)
	case "list":
		list, err := k.List(ctx)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "NAME\tPREFIX\tCREATED\tLAST USED\tREVOKED")
		for _, key := range list {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", key.Name, key.Prefix, stamp(key.CreatedAt), stamp(key.LastUsedAt), stamp(key.RevokedAt))
		}
		return w.Flush()
	case "revoke":
		_, err := k.Revoke(ctx, name)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("there is no key named %q; \"tracecraft keys list\" shows the names", name)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "revoked %s\n", name)
	}
	return nil
}

// stamp formats a time for the key list: RFC 3339 in UTC, "-" for never.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
