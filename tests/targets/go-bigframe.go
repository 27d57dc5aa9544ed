// SPDX-License-Identifier: GPL-2.0-or-later

// go-bigframe - Go call stacks deeper than a stack copy reaches.
//
// usage: go-bigframe main|moved|clock|alloc SECONDS
//
// main:  main.main calls main.bigFrame, whose frame holds a 64 KiB array,
//        which calls main.hotFrame (a frame of its own) and main.hotLeaf
//        (no frame: a leaf that keeps no frame pointer) by turns.
// moved: a goroutine, main.mover, grows its stack by recursion
//        (main.grow, 40 levels of 2 KiB frames: Go copies the stack to a
//        larger one at each growth, and adjusts the frame pointers in
//        it), then runs the same calls from the deepest level. It prints
//        "moved" when its stack is no longer where it began.
// clock: main.clockLoop reads the clock (time.Now, time.Since) in a
//        loop: Go's runtime calls the vDSO from runtime.nanotime1 and
//        time.now with the stack pointer moved (aligned, or on the
//        thread's system stack) where its tables do not say.
// alloc: main.allocLoop allocates large blocks in a loop: Go's runtime
//        takes them from its heap on the thread's system stack
//        (runtime.systemstack), and collects them there too.
//
// SECONDS is CPU time of the whole process.
package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

var sink uint64

func cpuNow() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// hotLeaf has no frame: it calls nothing and keeps nothing on the stack.
//
//go:noinline
func hotLeaf(b []byte, seed uint64) uint64 {
	h := seed
	for _, c := range b {
		h ^= uint64(c)
		h *= 0x100000001b3
	}
	return h
}

// hotFrame has a frame: its table lives on the stack.
//
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
		s += hotLeaf(buf[:], seed+uint64(k))
		s += hotFrame(buf[:], seed+uint64(k))
	}
	return s
}

func run(end float64) {
	for cpuNow() < end {
		for i := 0; i < 10; i++ {
			sink += bigFrame(uint64(i))
		}
	}
}

//go:noinline
func grow(depth int, end float64) uint64 {
	var pad [2 << 10]byte
	pad[depth%len(pad)] = byte(depth)
	if depth == 0 {
		run(end)
		return uint64(pad[0])
	}
	return grow(depth-1, end) + uint64(pad[depth%len(pad)])
}

//go:noinline
func mover(end float64, done chan<- bool) {
	var here byte
	start := uintptr(unsafe.Pointer(&here))
	sink += grow(40, end)
	if uintptr(unsafe.Pointer(&here)) != start {
		fmt.Println("moved")
	}
	done <- true
}

//go:noinline
func clockLoop(end float64) {
	for cpuNow() < end {
		start := time.Now()
		for i := 0; i < 10000; i++ {
			sink += uint64(time.Since(start))
		}
	}
}

//go:noinline
func allocLoop(end float64) {
	for cpuNow() < end {
		for i := 0; i < 64; i++ {
			b := make([]byte, 1<<20+i*4096)
			b[i] = byte(i)
			sink += uint64(b[len(b)/2])
		}
	}
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go-bigframe main|moved|clock|alloc SECONDS")
		os.Exit(2)
	}
	secs, err := strconv.ParseFloat(os.Args[2], 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-bigframe: bad SECONDS")
		os.Exit(2)
	}
	end := cpuNow() + secs
	switch os.Args[1] {
	case "main":
		run(end)
	case "moved":
		done := make(chan bool)
		go mover(end, done)
		<-done
	case "clock":
		clockLoop(end)
	case "alloc":
		allocLoop(end)
	default:
		fmt.Fprintln(os.Stderr, "usage: go-bigframe main|moved|clock|alloc SECONDS")
		os.Exit(2)
	}
}
