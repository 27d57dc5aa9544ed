/*
 * demangle.h - C++ (Itanium ABI) names to their source form.
 */
#ifndef PERFMINI_DEMANGLE_H
#define PERFMINI_DEMANGLE_H

/*
 * The demangled form of name as a malloc'd string, or NULL when name is
 * not a mangled C++ name (or cannot be demangled).
 */
char *demangle(const char *name);

#endif
