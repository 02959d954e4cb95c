// Command pgcheck tells, before `make test` runs the tests, whether the PostgreSQL tests
// will run and against which server, or why they will be skipped. Under CI it exits 1
// when the server is unreachable, since the tests would fail anyway.
package main

import (
	"fmt"
	"os"

	"github.com/tracecraft/tracecraft/host/internal/store/postgres/pgtest"
)

func main() {
	if err := pgtest.Reachable(); err != nil {
		if os.Getenv("CI") != "" {
			fmt.Println("PostgreSQL tests: FAIL:", pgtest.Unreachable(err))
			os.Exit(1)
		}
		fmt.Println("PostgreSQL tests: SKIPPED:", pgtest.Unreachable(err))
		return
	}
	fmt.Println("PostgreSQL tests: run against", pgtest.Redact(pgtest.ServerDSN()))
}
