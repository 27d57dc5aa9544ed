// SPDX-License-Identifier: GPL-2.0-or-later

// stk-gobig - a Go workload for bench/stack-truth with a 64 KiB frame
// between main and the hot function.
//
// usage: stk-gobig [SECONDS]   (default 3; CPU time of the whole process)
//
// main.main calls main.bigFrame, whose frame holds a 64 KiB array (a
// buffer on the stack, as Go code often has), which calls main.hotFrame,
// a function with a frame of its own: every hot function keeps a frame
// record, so a frame-pointer walk gets every frame right here, while no
// stack copy (at most 65528 bytes) holds bigFrame's frame and what lies
// above it.
package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

var sink uint64

func cpuNow() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

//go:noinline
func hotFrame(b []byte, seed uint64) uint64 {
	var tab [256]uint64
	for i := range tab {
		tab[i] = seed + uint64(i)*0x9e3779b97f4a7c15
	}
	h := seed
	for _, c := range b {
		h = (h ^ tab[c]) * 0x100000001b3
	}
	return h
}

//go:noinline
func bigFrame(seed uint64) uint64 {
	var buf [64 << 10]byte
	for i := range buf {
		buf[i] = byte(int(seed) + i*7)
	}
	s := uint64(0)
	for k := 0; k < 8; k++ {
		s += hotFrame(buf[:], seed+uint64(k))
	}
	return s
}

func main() {
	seconds := 3.0
	if len(os.Args) > 1 {
		var err error
		if seconds, err = strconv.ParseFloat(os.Args[1], 64); err != nil {
			fmt.Fprintln(os.Stderr, "usage: stk-gobig [SECONDS]")
			os.Exit(2)
		}
	}
	end := cpuNow() + seconds
	for cpuNow() < end {
		for i := 0; i < 10; i++ {
			sink += bigFrame(uint64(i))
		}
	}
	if sink == 42 {
		fmt.Println(sink)
	}
}
