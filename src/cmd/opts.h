/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opts.h - a command's options, each declared once as a row of a table.
 *
 * A row says what the option is called, what kind of value it takes and
 * within which bounds, where the value goes (a field of the command's
 * options struct, by offset), how the shell completes it, and its line of
 * help. From the one table come the getopt_long parsing (cmd_parse), the
 * --help text (cmd_help) and the listing the bash completion reads
 * (cmd_complete): an option added to the table is parsed, documented and
 * completed at once. Commands that share most of their options (report,
 * script, annotate) share one table, each row saying which of them it
 * belongs to; commands that take some of the same options (record and
 * top their targets and sampling) share rows: a row of kind OPT_ROWS
 * stands for the rows of another table, in its place. A command also
 * names perf's options it does not have, each with what to use instead,
 * so that a perf user is told in one line.
 */
#ifndef PERFMINI_OPTS_H
#define PERFMINI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What an option does with its value. */
enum opt_kind {
	OPT_END,      /* ends the table */
	OPT_SECTION,  /* no option: a heading of --help ("Targets:") */
	OPT_OPERAND,  /* no option: a line of --help for operands ("COMMAND [ARG...]") */
	OPT_HELP,     /* prints --help; the command then returns 0 */
	OPT_FLAG,     /* sets a bool */
	OPT_STRING,   /* points a const char * at the value, which may not be empty */
	OPT_STRINGS,  /* appends the value to a list: const char ** at off, size_t at off2 */
	OPT_NUMBER,   /* a decimal unsigned integer from min to max, into an unsigned
			 field of size bytes (1, 2, 4 or 8) */
	OPT_SECONDS,  /* a decimal number from min to max, into a double */
	OPT_DURATION, /* "800ns", "250us", "2ms", "1s" (a bare number is in
			 microseconds), from min to max ns, into a uint64_t of ns */
	OPT_KEYWORD,  /* one of words, whose value goes into an int (or enum) */
	OPT_IDS,      /* ids from min to max, comma-separated, added each once:
			 uint32_t * at off, size_t count at off2 */
	OPT_CALL,     /* call parses the value (or, with no arg, acts) */
	OPT_ROWS,     /* no option: the rows of another table (rows), here */
};

/* How the shell completes an option's value. */
enum opt_complete {
	COMPLETE_ANY,	  /* nothing to offer */
	COMPLETE_FILE,	  /* file names */
	COMPLETE_DIR,	  /* directory names */
	COMPLETE_PIDS,	  /* process ids, as a comma-separated list */
	COMPLETE_WORDS,	  /* the keywords of words, or what word_at gives */
	COMPLETE_COMMAND, /* operands: a command line to run (after "--") */
};

/* Flags of a row. */
enum {
	OPTF_EQ = 1 << 0,	/* --help shows "--NAME=ARG" (the value follows '=') */
	OPTF_POW2 = 1 << 1,	/* OPT_NUMBER: a power of two */
	OPTF_MIN_OPEN = 1 << 2, /* OPT_SECONDS: min itself is refused */
	/*
	 * OPT_CALL of a long option: the value is optional, given only as
	 * "--NAME=ARG"; call gets NULL without one. --help shows
	 * "--NAME[=ARG]".
	 */
	OPTF_OPTIONAL = 1 << 3,
};

/* A keyword of OPT_KEYWORD and the value it stores. */
struct opt_word {
	const char *word;
	int value;
};

struct cmd_opt {
	enum opt_kind kind;
	const char *name; /* the long name, without "--"; NULL: a short option only */
	int key;	  /* the short option's letter, 0 for none */
	const char *arg;  /* the value's name in --help ("FILE"); NULL: takes no value */
	unsigned flags;	  /* OPTF_* */
	size_t off,
		off2; /* where the value goes in the command's options struct (OPT_CALL: its own use) */
	size_t size;  /* OPT_NUMBER: the field's size */
	size_t given; /* has_given: a bool set whenever the option is given */
	bool has_given;
	double min, max;	      /* bounds, inclusive: NUMBER, SECONDS, DURATION, IDS */
	const struct opt_word *words; /* OPT_KEYWORD: ended by a NULL word */
	/* OPT_CALL: 0, or -1 when arg is bad (the error names 'what'). */
	int (*call)(void *opts, const struct cmd_opt *row, const char *arg);
	/*
	 * The error for a bad value: "--NAME: 'ARG' is not WHAT" (-KEY
	 * without a name); "--NAME: WHAT" when an option without a value
	 * cannot be taken.
	 */
	const char *what;
	enum opt_complete complete;
	/* COMPLETE_WORDS without words: word i, NULL past the last. */
	const char *(*word_at)(size_t i);
	/* The help: wrapped to the terminal's 80 columns; "\n" starts a line. */
	const char *help;
	/* The commands of a shared table it belongs to (their cmd_spec.cmd); 0: all of them. */
	unsigned cmds;
	/* OPT_ROWS: the table whose rows stand here (ended by OPT_END) */
	const struct cmd_opt *rows;
};

/* A perf option a command does not have, and what to use instead. */
struct opt_hint {
	const char *perf; /* as perf spells it: "--tui", "-G" */
	const char *instead;
};

struct cmd_spec {
	const char *name;	    /* "record" */
	const char *usage;	    /* --help before the options: usage lines, what it does */
	const char *epilogue;	    /* --help after the options */
	const struct cmd_opt *opts; /* ended by an OPT_END row */
	bool operands_end_options;  /* the first operand ends the options (a command to run) */
	enum opt_complete operands; /* how the shell completes operands */
	/* In a table shared by commands, this one's bit: only rows whose cmds has it. 0: all. */
	unsigned cmd;
	/* perf's options it has not, ended by a NULL perf: "--tui is perf's: INSTEAD". */
	const struct opt_hint *hints;
};

/*
 * Parses the options of argv (argv[0] being the command's name) into
 * opts, by spec. Returns -1 when the command goes on, *first then the
 * index of the first operand; otherwise the status the command exits
 * with: 0 after --help was printed, 2 after a usage error was said
 * (cmd_usage_error). Lists of OPT_STRINGS and OPT_IDS are allocated:
 * the command frees them, also after an error.
 */
int cmd_parse(const struct cmd_spec *spec, int argc, char **argv, void *opts, int *first);

/* The --help of spec, as the usage text, the options table, the epilogue. */
void cmd_help(const struct cmd_spec *spec, FILE *out);

/*
 * The options of spec for the shell completion, one line per option
 * name: "NAME HOW [WORD...]", HOW being "-" (takes no value), "any",
 * "file", "dir", "pids" or "words" (then the words), prefixed with '='
 * when the value follows an '=' ("--call-graph =words hybrid fp ...");
 * then, when the operands are a command to run, the line "-- command".
 */
void cmd_complete(const struct cmd_spec *spec, FILE *out);

/* Row constructors: T is the command's options struct. */
#define OPT_AT(T, f)	  .off = offsetof(T, f)
#define OPT_SIZE(T, f)	  .off = offsetof(T, f), .size = sizeof(((T *)0)->f)
#define OPT_LIST(T, f, n) .off = offsetof(T, f), .off2 = offsetof(T, n)
#define OPT_GIVEN(T, f)	  .given = offsetof(T, f), .has_given = true

/* The words of report's and top's --sort, for the completion (report-opts.c). */
extern const struct opt_word sort_words[];

#endif
