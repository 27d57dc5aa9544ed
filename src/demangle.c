/*
 * demangle.c - C++ demangling through the C++ runtime's __cxa_demangle,
 * the same routine eu-addr2line -C and c++filt give their answers from.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "demangle.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *demangle(const char *name)
{
	int status = 0;
	char *out;

	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}
