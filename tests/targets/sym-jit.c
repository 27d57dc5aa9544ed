/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sym-jit.c - JIT code: copies a small machine-code loop into anonymous
 * executable memory, announces it in /tmp/perf-PID.map ("START SIZE
 * jit_hot", hexadecimal, the format JIT runtimes write for perf), says
 * so on standard output ("sym-jit: wrote PATH..."), and spends its time
 * calling it. The map file is removed at exit.
 *
 * Usage: sym-jit [-w] [SECONDS [symlink|chown=UID|late=SECONDS|nomap]]
 *   -w         once the map is written, print a ready line and wait for
 *              SIGUSR1 (see sym-hot.h)
 *   SECONDS    CPU seconds spent in the generated code (default 1)
 *   symlink    write the map to /tmp/perf-PID.map.real and make
 *              /tmp/perf-PID.map a symbolic link to it (a map that a
 *              profiler must not trust)
 *   chown=UID  give the map file to user UID (as root: a map that another
 *              user could have written, which a profiler must not trust)
 *   late=S     first spend S CPU seconds in the generated code, and only
 *              then write the map (a runtime that announces its code late)
 *   nomap      write no map at all (a runtime run without its perf map
 *              option); says "sym-jit: no map" instead
 *   reuse      name the code jit_hot for the whole page first (a larger
 *              entry), spend half of SECONDS in it, then copy it again
 *              to the same address and append a line naming it
 *              jit_again (as a runtime does that reuses code addresses)
 *              for the other half; says "sym-jit: reused" then
 */
#include <sys/mman.h>

#include "sym-hot.h"

/* Iterations of the generated loop: a fraction of a millisecond a call. */
#define JIT_LOOPS 1000000u

#if defined(__x86_64__) || defined(__i386__)
/* mov $JIT_LOOPS,%ecx; 1: dec %ecx; jnz 1b; ret */
static const unsigned char jit_code[] = {
	0xb9,
	JIT_LOOPS & 0xff,
	(JIT_LOOPS >> 8) & 0xff,
	(JIT_LOOPS >> 16) & 0xff,
	(JIT_LOOPS >> 24) & 0xff,
	0xff,
	0xc9,
	0x75,
	0xfc,
	0xc3,
};
#elif defined(__aarch64__)
/* movz w9,#lo; movk w9,#hi,lsl #16; 1: subs w9,w9,#1; b.ne 1b; ret */
static const uint32_t jit_code[] = {
	0x52800009u | ((JIT_LOOPS & 0xffffu) << 5),
	0x72a00009u | ((JIT_LOOPS >> 16) << 5),
	0x71000529u,
	0x54ffffe1u,
	0xd65f03c0u,
};
#else
#error "sym-jit: no machine code for this architecture"
#endif

static char map_path[64], real_path[80];

static void remove_map(void)
{
	unlink(map_path);
	if (real_path[0])
		unlink(real_path);
}

static void on_signal(int sig)
{
	remove_map();
	signal(sig, SIG_DFL);
	raise(sig);
}

int main(int argc, char **argv)
{
	int wait_start = argc > 1 && !strcmp(argv[1], "-w");
	char **args = argv + 1 + wait_start;
	int nargs = argc - 1 - wait_start;
	double secs = nargs > 0 ? sym_seconds("sym-jit", args[0]) : 1.0;
	const char *mode = nargs > 1 ? args[1] : "";
	const char *write_path;
	void (*fn)(void);
	unsigned char *code;
	long owner = -1;
	double late = 0, reuse = 0;
	FILE *f;

	if (nargs > 2 ||
	    (*mode && strcmp(mode, "symlink") && strncmp(mode, "chown=", 6) &&
	     strncmp(mode, "late=", 5) && strcmp(mode, "nomap") && strcmp(mode, "reuse"))) {
		fprintf(stderr, "usage: sym-jit [-w] [SECONDS "
				"[symlink|chown=UID|late=SECONDS|nomap|reuse]]\n");
		return 2;
	}
	if (!strcmp(mode, "reuse"))
		reuse = secs / 2;
	if (!strncmp(mode, "chown=", 6))
		owner = strtol(mode + 6, NULL, 10);
	if (!strncmp(mode, "late=", 5))
		late = sym_seconds("sym-jit", mode + 5);

	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	if (code == MAP_FAILED) {
		perror("sym-jit: mmap of executable memory");
		return 2;
	}
	memcpy(code, jit_code, sizeof(jit_code));
	__builtin___clear_cache((char *)code, (char *)code + sizeof(jit_code));
	memcpy(&fn, &code, sizeof(fn));
	while (sym_thread_cpu() < late)
		for (int i = 0; i < 10; i++)
			fn();

	snprintf(map_path, sizeof(map_path), "/tmp/perf-%ld.map", (long)getpid());
	write_path = map_path;
	if (!strcmp(mode, "symlink")) {
		snprintf(real_path, sizeof(real_path), "%s.real", map_path);
		write_path = real_path;
	}
	if (!strcmp(mode, "nomap")) {
		printf("sym-jit: no map\n");
		fflush(stdout);
		goto run;
	}
	atexit(remove_map);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	f = fopen(write_path, "w");
	if (!f ||
	    fprintf(f, "%lx %lx jit_hot\n", (unsigned long)(uintptr_t)code,
		    reuse > 0 ? 4096ul : (unsigned long)sizeof(jit_code)) < 0 ||
	    fclose(f) != 0) {
		perror(write_path);
		return 2;
	}
	if (real_path[0] && symlink(real_path, map_path) != 0) {
		perror(map_path);
		return 2;
	}
	if (owner >= 0 && chown(map_path, (uid_t)owner, (gid_t)-1) != 0) {
		perror(map_path);
		return 2;
	}
	printf("sym-jit: wrote %s%s%s\n", map_path, real_path[0] ? ", a link to " : "", real_path);
	fflush(stdout);
run:
	if (wait_start)
		sym_wait_start("sym-jit");

	while (sym_thread_cpu() < late + secs - reuse)
		for (int i = 0; i < 10; i++)
			fn();
	if (reuse > 0) {
		memcpy(code, jit_code, sizeof(jit_code));
		__builtin___clear_cache((char *)code, (char *)code + sizeof(jit_code));
		f = fopen(write_path, "a");
		if (!f ||
		    fprintf(f, "%lx %lx jit_again\n", (unsigned long)(uintptr_t)code,
			    (unsigned long)sizeof(jit_code)) < 0 ||
		    fclose(f) != 0) {
			perror(write_path);
			return 2;
		}
		printf("sym-jit: reused\n");
		fflush(stdout);
		while (sym_thread_cpu() < late + secs)
			for (int i = 0; i < 10; i++)
				fn();
	}
	return 0;
}
