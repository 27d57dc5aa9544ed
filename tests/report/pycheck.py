# SPDX-License-Identifier: GPL-2.0-or-later
# pycheck - what the Python checkers of the test suite share: the checks
# that failed, and how they are told.
import sys

failures = []


def check(cond, what):
    """Keeps what as a failure unless cond; returns cond."""
    if not cond:
        failures.append(what)
    return cond


def report(name):
    """Prints each failure as 'NAME: what' on stderr; 1 if any failed, else 0."""
    for f in failures:
        print("%s: %s" % (name, f), file=sys.stderr)
    return 1 if failures else 0
