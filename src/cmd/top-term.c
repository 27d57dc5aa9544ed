/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * top-term.c - the full screen of 'perfmini top' over plain ANSI escape
 * sequences and termios; see top-term.h, which says why not ncurses.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "cmd/top-term.h"
#include "report/report.h"
#include "util/array.h"
#include "util/io.h"
#include "util/msg.h"
#include "util/utf8.h"

/*
 * Taken: the alternate screen (xterm's, which every terminal emulator in
 * use has), the screen cleared, the cursor hidden, no wrapping at the
 * last column. Given back: all of it undone, the attributes reset.
 */
#define SCREEN_TAKE "\033[?1049h\033[H\033[2J\033[?25l\033[?7l"
#define SCREEN_GIVE "\033[0m\033[?7h\033[?25h\033[?1049l"

/* The screen's size when the terminal does not say. */
#define DEFAULT_ROWS 24
#define DEFAULT_COLS 80

/*
 * What the handlers need to give the terminal back: only async-signal-safe
 * calls read them. raw is set while the terminal is ours.
 */
static struct {
	volatile sig_atomic_t raw;
	int in, out, resize, err_saved, err_file;
	struct termios saved, taken;
} held = {.in = -1, .out = -1, .resize = -1, .err_saved = -1, .err_file = -1};

/* The fatal signals whose action follows the terminal given back. */
static const int fatal[] = {SIGSEGV, SIGABRT, SIGFPE, SIGILL, SIGQUIT};
static struct sigaction fatal_old[ARRAY_SIZE(fatal)];

/* Writes what the process wrote to stderr while the screen was up to the real one. */
static void replay_errors(void)
{
	char buf[4096];
	off_t at = 0;
	ssize_t n;

	while ((n = pread(held.err_file, buf, sizeof(buf), at)) > 0) {
		if (write_all(held.err_saved, buf, (size_t)n) < 0)
			break;
		at += n;
	}
}

/* The terminal and stderr given back; async-signal-safe, and once only. */
static void give_back(void)
{
	if (!held.raw)
		return;
	held.raw = 0;
	if (write_all(held.out, SCREEN_GIVE, strlen(SCREEN_GIVE)) < 0) {
		/* a terminal gone (hung up): nothing to give back to */
	}
	tcsetattr(held.in, TCSAFLUSH, &held.saved);
	if (held.err_saved >= 0) {
		dup2(held.err_saved, 2);
		replay_errors();
	}
}

/* The terminal taken again (after a continue): raw, the screen ours, a redraw asked for. */
static void take_again(void)
{
	char c = 'c';

	tcsetattr(held.in, TCSAFLUSH, &held.taken);
	if (write_all(held.out, SCREEN_TAKE, strlen(SCREEN_TAKE)) < 0 ||
	    write(held.resize, &c, 1) < 0) {
		/* the redraw waits for the next refresh */
	}
	if (held.err_saved >= 0)
		dup2(held.err_file, 2);
	held.raw = 1;
}

static void on_winch(int sig)
{
	int saved = errno;
	char c = 'w';

	(void)sig;
	if (write(held.resize, &c, 1) < 0) {
		/* full: a redraw is pending already */
	}
	errno = saved;
}

/* Control-Z: the terminal given back, then the stop itself (SIGTSTP's default). */
static void on_tstp(int sig)
{
	int saved = errno;

	give_back();
	signal(sig, SIG_DFL);
	raise(sig); /* blocked in its handler: the stop comes as it returns */
	errno = saved;
}

static void on_cont(int sig)
{
	int saved = errno;
	struct sigaction sa;

	(void)sig;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tstp;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTSTP, &sa, NULL);
	if (!held.raw && held.out >= 0)
		take_again();
	errno = saved;
}

/* A fatal signal: the terminal given back, then what the signal did before. */
static void on_fatal(int sig)
{
	give_back();
	for (size_t i = 0; i < ARRAY_SIZE(fatal); i++)
		if (fatal[i] == sig)
			sigaction(sig, &fatal_old[i], NULL);
	raise(sig);
}

static void give_back_at_exit(void)
{
	give_back();
}

static void install_handlers(void)
{
	static bool done;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = on_tstp;
	sigaction(SIGTSTP, &sa, NULL);
	sa.sa_handler = on_cont;
	sigaction(SIGCONT, &sa, NULL);
	if (done)
		return;
	done = true;
	atexit(give_back_at_exit);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < ARRAY_SIZE(fatal); i++)
		sigaction(fatal[i], &sa, &fatal_old[i]);
}

/* The screen's size, from the terminal or the defaults. */
static void read_size(struct term *t)
{
	struct winsize ws;

	t->rows = DEFAULT_ROWS;
	t->cols = DEFAULT_COLS;
	if (ioctl(t->out, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
		t->rows = ws.ws_row;
		t->cols = ws.ws_col;
	}
}

/* The epoll descriptor session_run polls: a key, or a resize. 0 or -errno. */
static int open_events(struct term *t)
{
	struct epoll_event ev = {.events = EPOLLIN};

	if (pipe2(t->resize, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	t->events = epoll_create1(EPOLL_CLOEXEC);
	if (t->events < 0)
		return -errno;
	if (epoll_ctl(t->events, EPOLL_CTL_ADD, t->in, &ev) < 0 ||
	    epoll_ctl(t->events, EPOLL_CTL_ADD, t->resize[0], &ev) < 0)
		return -errno;
	return 0;
}

/* stderr to an unnamed file while the screen is up: a message would scribble on it. */
static int catch_errors(struct term *t)
{
	int fd = unnamed_file("perfmini-top-messages");

	if (fd < 0)
		return fd;
	fflush(stderr);
	t->err_file = fd;
	t->err_saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (t->err_saved < 0)
		return -errno;
	held.err_file = t->err_file;
	held.err_saved = t->err_saved;
	return dup2(fd, 2) < 0 ? -errno : 0;
}

int term_open(struct term *t, int in, int out)
{
	const char *no_color = getenv("NO_COLOR");
	int ret;

	memset(t, 0, sizeof(*t));
	t->in = in;
	t->out = out;
	t->events = t->resize[0] = t->resize[1] = t->err_saved = t->err_file = -1;
	t->colour = !no_color || !*no_color;
	if (tcgetattr(in, &held.saved) < 0 || (ret = open_events(t)) < 0) {
		error("cannot use the terminal: %s", strerror(errno));
		term_close(t);
		return -1;
	}
	held.in = in;
	held.out = out;
	held.resize = t->resize[1];
	held.taken = held.saved;
	/* Keys one by one, unechoed, Control-C still a SIGINT; reads never wait. */
	held.taken.c_lflag &= ~(tcflag_t)(ICANON | ECHO | IEXTEN);
	held.taken.c_iflag &= ~(tcflag_t)(IXON | ICRNL | INLCR);
	held.taken.c_cc[VMIN] = 0;
	held.taken.c_cc[VTIME] = 0;
	install_handlers();
	if ((ret = catch_errors(t)) < 0) {
		error("cannot hold the messages while the screen is up: %s", strerror(-ret));
		term_close(t);
		return -1;
	}
	read_size(t);
	take_again();
	return 0;
}

void term_close(struct term *t)
{
	give_back();
	signal(SIGTSTP, SIG_DFL);
	signal(SIGCONT, SIG_DFL);
	signal(SIGWINCH, SIG_DFL);
	held.in = held.out = held.resize = held.err_saved = held.err_file = -1;
	if (t->events >= 0)
		close(t->events);
	for (int i = 0; i < 2; i++)
		if (t->resize[i] >= 0)
			close(t->resize[i]);
	if (t->err_saved >= 0)
		close(t->err_saved);
	if (t->err_file >= 0)
		close(t->err_file);
	t->events = t->resize[0] = t->resize[1] = t->err_saved = t->err_file = -1;
}

bool term_resized(struct term *t)
{
	char sink[64];
	bool any = false;

	while (read(t->resize[0], sink, sizeof(sink)) > 0)
		any = true;
	if (any)
		read_size(t);
	return any;
}

/* The key of an escape sequence ending in final, with parameter n ("5~": n 5). */
static int sequence_key(unsigned char final, unsigned n)
{
	static const int tilde[] = {[1] = KEY_HOME, [4] = KEY_END,  [5] = KEY_PGUP,
				    [6] = KEY_PGDN, [7] = KEY_HOME, [8] = KEY_END};

	switch (final) {
	case 'A':
		return KEY_UP;
	case 'B':
		return KEY_DOWN;
	case 'C':
		return KEY_RIGHT;
	case 'D':
		return KEY_LEFT;
	case 'H':
		return KEY_HOME;
	case 'F':
		return KEY_END;
	case '~':
		return n < ARRAY_SIZE(tilde) && tilde[n] ? tilde[n] : KEY_NONE;
	default:
		return KEY_NONE;
	}
}

/*
 * The key the bytes b[0, n) start with, *used the bytes it takes;
 * KEY_NONE for a sequence of no key the view knows (skipped). A lone
 * escape is the Escape key: a sequence split between reads is taken for
 * one, which costs a stray key at worst.
 */
static int decode_key(const unsigned char *b, size_t n, size_t *used)
{
	unsigned param = 0;

	*used = 1;
	if (b[0] != 0x1b)
		return b[0] == '\r' || b[0] == '\n'   ? KEY_ENTER
		       : b[0] == 0x7f || b[0] == 0x08 ? KEY_BACK
						      : b[0];
	if (n < 3 || (b[1] != '[' && b[1] != 'O'))
		return KEY_ESC;
	for (size_t i = 2; i < n; i++) {
		if (b[i] >= 0x40 && b[i] <= 0x7e) {
			*used = i + 1;
			return sequence_key(b[i], param);
		}
		if (b[i] >= '0' && b[i] <= '9' && param < 1000)
			param = param * 10 + (unsigned)(b[i] - '0');
	}
	return KEY_ESC;
}

int term_key(struct term *t)
{
	int key = KEY_NONE;
	size_t used;
	ssize_t n;

	while (key == KEY_NONE) {
		if (!t->nbuf) {
			n = read(t->in, t->buf, sizeof(t->buf));
			if (n <= 0)
				return KEY_NONE;
			t->nbuf = (size_t)n;
		}
		key = decode_key(t->buf, t->nbuf, &used);
		memmove(t->buf, t->buf + used, t->nbuf - used);
		t->nbuf -= used;
	}
	return key;
}

void term_frame(struct term *t, const char *text, long cursor, long bold)
{
	struct sbuf b = SBUF_INIT;
	const char *s = text;

	for (long i = 0; i < t->rows; i++) {
		size_t len = s ? strcspn(s, "\n") : 0, at;
		bool reverse = i == cursor && t->colour, strong = i == bold && t->colour;

		/*
		 * The line erased first: erasing after a line as wide as the
		 * screen would take its last character (the cursor stays on the
		 * last column, wrapping being off).
		 */
		sbuf_addf(&b, "\033[%ld;1H\033[2K%s", i + 1,
			  reverse  ? "\033[7m"
			  : strong ? "\033[1m"
				   : "");
		at = b.len;
		if (s) {
			char *line = strndup(s, len);

			report_cut_end(line ? line : "", (size_t)t->cols, &b);
			free(line);
			s = s[len] ? s + len + 1 : NULL;
			if (s && !*s)
				s = NULL;
		}
		/* Reverse video across the screen: the line padded to its width. */
		for (size_t w = report_text_width(b.buf + at); reverse && w < (size_t)t->cols; w++)
			sbuf_adds(&b, " ");
		if (reverse || strong)
			sbuf_adds(&b, "\033[0m");
	}
	if (write_all(t->out, b.buf, b.len) < 0) {
		/* a terminal gone: the hangup stops the view */
	}
	sbuf_release(&b);
}

bool term_message(struct term *t, struct sbuf *b)
{
	struct stat st;
	char buf[512];
	size_t len, start;
	ssize_t n;

	fflush(stderr);
	if (t->err_file < 0 || fstat(t->err_file, &st) < 0 || (size_t)st.st_size <= t->err_seen)
		return b->len > 0;
	/* The last line: the end of what was written, up to 512 bytes of it. */
	len = (size_t)st.st_size - t->err_seen < sizeof(buf) - 1 ? (size_t)st.st_size - t->err_seen
								 : sizeof(buf) - 1;
	n = pread(t->err_file, buf, len, st.st_size - (off_t)len);
	if (n <= 0)
		return b->len > 0;
	t->err_seen = (size_t)st.st_size;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	start = (size_t)n;
	while (start > 0 && buf[start - 1] != '\n')
		start--;
	sbuf_reset(b);
	sbuf_add_printable(b, buf + start);
	return b->len > 0;
}
