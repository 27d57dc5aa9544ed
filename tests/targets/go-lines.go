// SPDX-License-Identifier: GPL-2.0-or-later
// go-lines.go - a hot Go function whose time is in an inlined callee, for
// the source-line tests (run-lines-go.sh): work calls mix, which the Go
// compiler inlines, so every sample in the loop is one frame of main.work
// standing for the chain main.work -> main.mix. The MARK comments name
// the lines the test expects. Runs for the given seconds of its own CPU
// time (default 1), so that a loaded machine does not cut its samples.
package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

var sink uint64

func mix(x uint64, n int) uint64 {
	for i := 0; i < n; i++ { // MARK go-loop
		x = x*6364136223846793005 + 1442695040888963407 // MARK go-body
	}
	return x
}

//go:noinline
func work(x uint64) uint64 {
	return mix(x, 1000000) * 3 // MARK go-call
}

// cpuSeconds is the process's CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fmt.Fprintln(os.Stderr, "getrusage:", err)
		os.Exit(2)
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

func main() {
	secs := 1.0
	if len(os.Args) > 1 {
		v, err := strconv.ParseFloat(os.Args[1], 64)
		if err != nil || v < 0 || v > 3600 {
			fmt.Fprintf(os.Stderr, "%s: bad number of seconds '%s'\n", os.Args[0], os.Args[1])
			os.Exit(2)
		}
		secs = v
	}
	x := uint64(1)
	start := cpuSeconds()
	for cpuSeconds()-start < secs {
		x = work(x)
	}
	sink = x
}
