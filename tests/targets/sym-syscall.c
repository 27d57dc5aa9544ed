/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sym-syscall.c - a loop that spends its time in the kernel: syscall_hot()
 * reads 256 KiB from /dev/zero with the system call instruction inlined
 * in it, so the interrupted user address of a sample taken in the kernel
 * is in syscall_hot itself (a call through libc's read() would leave a
 * frameless libc function as the user leaf and hide syscall_hot).
 *
 * Usage: sym-syscall [SECONDS]   (CPU seconds, user and system, default 1)
 */
#include <fcntl.h>
#include <sys/syscall.h>

#include "sym-hot.h"

static char buf[262144];
volatile long sym_syscall_sink;

SYM_HOT_FN long syscall_hot(long fd)
{
	long ret;

	SYM_FRAME();
#if defined(__x86_64__)
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_read), "D"(fd), "S"(buf), "d"(sizeof(buf))
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	{
		register long x8 __asm__("x8") = SYS_read;
		register long x0 __asm__("x0") = fd;
		register long x1 __asm__("x1") = (long)buf;
		register long x2 __asm__("x2") = (long)sizeof(buf);

		__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
		ret = x0;
	}
#else
#error "sym-syscall: no inline system call for this architecture"
#endif
	return ret;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? sym_seconds("sym-syscall", argv[1]) : 1.0;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0) {
		perror("sym-syscall: /dev/zero");
		return 2;
	}
	while (sym_thread_cpu() < secs) {
		for (int i = 0; i < 100; i++) {
			long n = syscall_hot(fd);

			if (n != (long)sizeof(buf)) {
				fprintf(stderr, "sym-syscall: read /dev/zero: %ld\n", n);
				return 2;
			}
			sym_syscall_sink += n;
		}
	}
	close(fd);
	return 0;
}
