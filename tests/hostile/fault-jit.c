/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fault-jit.c - JIT code with a perf map a profiler may or may not trust:
 * copies a small machine-code loop into anonymous executable memory,
 * describes it in /tmp/perf-PID.map ("START SIZE fault_jit_hot", the
 * format JIT runtimes write for perf) in one of several hostile ways, says
 * what it did on standard output ("fault-jit: MODE /tmp/perf-PID.map"),
 * and spends its time in that code. The map (and what it made for it) is
 * removed at exit, and on SIGINT and SIGTERM.
 *
 * Usage: fault-jit SECONDS MODE
 *   SECONDS    CPU seconds spent in the generated code
 *   MODE       good       a regular file, owned by this process's user
 *              symlink    the map is written to /tmp/perf-PID.map.real and
 *                         /tmp/perf-PID.map is a symbolic link to it
 *              chown=UID  the map belongs to user UID (made as root)
 *              fifo       /tmp/perf-PID.map is a named pipe nobody writes
 *              dir        /tmp/perf-PID.map is a directory
 *              bind       the map is written to /tmp/perf-PID.map.real
 *                         (mode 0600) and bind-mounted, in a mount
 *                         namespace of this process's own, over an empty
 *                         /tmp/perf-PID.map (needs root)
 *              empty      the map is there, but empty
 *              longline   the good line follows a first "line" of
 *                         LONG_LINE_BYTES without a newline (a hole of the
 *                         file: it takes no disk space)
 */
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "../targets/hot.h"

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
#error "fault-jit: no machine code for this architecture"
#endif

/* longline: more than a reader should ever hold, less than a perf map's read limit. */
#define LONG_LINE_BYTES (160L << 20)

static char map_path[64], real_path[80];
static const char *mode;

static void remove_map(void)
{
	if (!strcmp(mode, "bind"))
		umount2(map_path, MNT_DETACH);
	if (!strcmp(mode, "dir"))
		rmdir(map_path);
	else
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

static void die_errno(const char *what)
{
	perror(what);
	exit(2);
}

int main(int argc, char **argv)
{
	double secs = hot_seconds(argc, argv, 1, 1.0);
	void (*fn)(void);
	unsigned char *code;
	FILE *f;

	mode = argc > 2 ? argv[2] : "";
	if (argc != 3 ||
	    (strcmp(mode, "good") && strcmp(mode, "symlink") && strncmp(mode, "chown=", 6) &&
	     strcmp(mode, "fifo") && strcmp(mode, "dir") && strcmp(mode, "longline") &&
	     strcmp(mode, "bind") && strcmp(mode, "empty"))) {
		fprintf(stderr,
			"usage: fault-jit SECONDS good|symlink|chown=UID|fifo|dir|longline|bind|"
			"empty\n");
		return 2;
	}
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	if (code == MAP_FAILED)
		die_errno("fault-jit: mmap of executable memory");
	memcpy(code, jit_code, sizeof(jit_code));
	__builtin___clear_cache((char *)code, (char *)code + sizeof(jit_code));

	snprintf(map_path, sizeof(map_path), "/tmp/perf-%ld.map", (long)getpid());
	atexit(remove_map);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!strcmp(mode, "fifo")) {
		if (mkfifo(map_path, 0644) != 0)
			die_errno(map_path);
	} else if (!strcmp(mode, "dir")) {
		if (mkdir(map_path, 0755) != 0)
			die_errno(map_path);
	} else {
		const char *write_path = map_path;

		if (!strcmp(mode, "symlink") || !strcmp(mode, "bind")) {
			snprintf(real_path, sizeof(real_path), "%s.real", map_path);
			write_path = real_path;
		}
		f = fopen(write_path, "w");
		if (f && !strcmp(mode, "longline") &&
		    (ftruncate(fileno(f), LONG_LINE_BYTES) != 0 || fseek(f, 0, SEEK_END) != 0 ||
		     fputc('\n', f) == EOF))
			die_errno(write_path);
		if (f && !strcmp(mode, "empty")) {
			if (fclose(f) != 0)
				die_errno(write_path);
		} else if (!f ||
			   fprintf(f, "%lx %lx fault_jit_hot\n", (unsigned long)(uintptr_t)code,
				   (unsigned long)sizeof(jit_code)) < 0 ||
			   fclose(f) != 0)
			die_errno(write_path);
		if (!strcmp(mode, "symlink") && symlink(real_path, map_path) != 0)
			die_errno(map_path);
		if (!strcmp(mode, "bind") &&
		    (chmod(real_path, 0600) != 0 || !(f = fopen(map_path, "w")) || fclose(f) != 0 ||
		     unshare(CLONE_NEWNS) != 0 ||
		     mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
		     mount(real_path, map_path, NULL, MS_BIND, NULL) != 0))
			die_errno("fault-jit: bind mount of the map");
		if (!strncmp(mode, "chown=", 6) &&
		    chown(map_path, (uid_t)strtol(mode + 6, NULL, 10), (gid_t)-1) != 0)
			die_errno(map_path);
	}
	printf("fault-jit: %s %s\n", mode, map_path);
	fflush(stdout);

	memcpy(&fn, &code, sizeof(fn));
	while (hot_thread_cpu() < secs)
		for (int i = 0; i < 10; i++)
			fn();
	return 0;
}
