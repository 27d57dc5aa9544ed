// SPDX-License-Identifier: GPL-2.0-or-later

// stk-go - a Go workload for bench/stack-truth.
//
// usage: stk-go [SECONDS]   (default 3)
//
// SECONDS is CPU time of the whole process (the garbage collector's threads
// too), not wall time: on a busy machine every recording then covers the
// same work and gets about as many samples, so two recordings compare.
//
// Two hot functions on the main goroutine: a hash loop over a buffer
// (hashBytes, called from hashRound) and sort.Slice with a closure
// (sortRound; its closure is named main.sortRound.func1). Go keeps frame
// pointers on amd64, so both unwinders should agree; the garbage
// collector's own threads add stacks of the runtime beside them.
package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"syscall"
)

var sink uint64

// cpuNow is the process's CPU time, in seconds.
func cpuNow() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

//go:noinline
func hashBytes(b []byte, seed uint64) uint64 {
	h := seed ^ 0xcbf29ce484222325
	for _, c := range b {
		h ^= uint64(c)
		h *= 0x100000001b3
	}
	return h
}

//go:noinline
func hashRound(buf []byte, n int) {
	for i := 0; i < n; i++ {
		buf[i%len(buf)]++
		sink += hashBytes(buf, uint64(i))
	}
}

type rec struct {
	key  uint64
	name string
}

//go:noinline
func sortRound(recs []rec, rng *uint64) {
	// Fresh keys each call: sort.Slice never gets sorted input.
	for i := range recs {
		*rng ^= *rng << 13
		*rng ^= *rng >> 7
		*rng ^= *rng << 17
		recs[i].key = *rng % 1000000
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].key < recs[j].key })
	sink += recs[len(recs)/2].key
}

func main() {
	seconds := 3.0
	if len(os.Args) > 1 {
		var err error
		if seconds, err = strconv.ParseFloat(os.Args[1], 64); err != nil {
			fmt.Fprintln(os.Stderr, "usage: stk-go [SECONDS]")
			os.Exit(2)
		}
	}
	// Over 64 KiB, so on the heap: a buffer this size on main's own frame
	// would put runtime.main out of reach of any DWARF stack copy (at most
	// 65528 bytes).
	buf := make([]byte, 256<<10)
	recs := make([]rec, 20000)
	rng := uint64(0x9e3779b97f4a7c15)
	end := cpuNow() + seconds
	for cpuNow() < end {
		hashRound(buf, 10)
		sortRound(recs, &rng)
	}
	if sink == 42 {
		fmt.Println(sink)
	}
}
