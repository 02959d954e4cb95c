// Package enginemem holds the tests that measure the memory of the bundled engines'
// plugin processes, started and called as the host does: the peak on a large photograph
// and what an idle process keeps after a job. It has no code of its own. Each figure is
// one process's own (its /proc status), so the tests run in parallel.
package enginemem
