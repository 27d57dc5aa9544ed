# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# deps.sh - sourced by scripts/demo and scripts/check: installs the Debian
# packages perfmini needs to build and test, only those that are missing.
#
# POSIX sh, without 'local': tests source it under /bin/sh (dash), the
# scripts under bash. The functions' variables are globals named pm_*.
#
# pm_install_deps [EXTRA_PACKAGE...]
#	Installs the missing ones of PM_BUILD_DEPS and EXTRA_PACKAGE with
#	apt-get; runs apt-get update/install only when something is missing.
#	Returns non-zero with a message when that is not possible.
#
# pm_install_node_deps
#	Installs the npm packages of the browser tests (puppeteer-core, which
#	drives the chromium package; it downloads no browser; speedscope's
#	viewer; the Firefox Profiler's profiler-cli) into
#	PM_NODE_DIR, a cache outside the source and build trees so that every
#	build and make distcheck share it, unless they are there; installs
#	Debian's nodejs and npm first when there is no node. Prints nothing
#	when all is in place.

# libiberty-dev: binutils' demanglers (C++, Rust), a static library.
PM_BUILD_DEPS="libelf-dev libdw-dev libiberty-dev check autoconf automake
libtool pkg-config zlib1g-dev libzstd-dev libcapstone-dev make gcc"
# What the test suite uses beyond the build: decoders and readers of the
# report formats (golang-go for go tool pprof, chromium for the SVG), the
# C++ front end (g++), clang, Debian's Go and Rust compilers for test
# targets, glibc's debug symbols (libc6-dbg) for the names of its aliases,
# perf and Python's debug symbols for the stack-truth test, libunwind for
# the unwinding oracle test, tmux for the terminal test of perfmini top,
# script (bsdutils) for a report on a real terminal.
# shellcheck disable=SC2034 # read by scripts/check, which sources this
PM_TEST_DEPS="protobuf-compiler python3 libxml2-utils lld debuginfod xz-utils binutils time linux-perf
util-linux bsdutils mount bash-completion strace g++ clang golang-go rustc libc6-dbg python3-dbg chromium
python3-jsonschema libunwind-dev tmux"

pm_msg() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
}

# Prints the packages of "$@" that are not installed, one per line.
pm_missing_packages() {
	for pm_p in "$@"; do
		dpkg -s "$pm_p" 2>/dev/null | grep -qx 'Status: install ok installed' ||
			printf '%s\n' "$pm_p"
	done
}

pm_install_deps() {
	if ! command -v dpkg >/dev/null 2>&1; then
		# shellcheck disable=SC2086 # the package list, one word each
		pm_msg "no dpkg: not a Debian system; install by hand:" $PM_BUILD_DEPS "$@"
		return 0
	fi
	# shellcheck disable=SC2086 # word splitting of the package list is intended
	pm_missing=$(pm_missing_packages $PM_BUILD_DEPS "$@")
	[ -z "$pm_missing" ] && return 0
	pm_missing=$(printf '%s' "$pm_missing" | tr '\n' ' ')
	if [ "$(id -u)" -ne 0 ]; then
		pm_msg "missing packages: $pm_missing"
		pm_msg "install them as root: apt-get install $pm_missing"
		return 1
	fi
	pm_msg "installing: $pm_missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086 # the package list, one word each
	if ! apt-get update -qq || ! apt-get install -y -qq $pm_missing; then
		pm_msg "cannot install: $pm_missing"
		return 1
	fi
}

# The npm packages of the browser tests, pinned: puppeteer-core 24 still
# runs on node 18 and 20; speedscope ships its built web app (the timeline
# test opens its files in it); profiler-cli is the Firefox Profiler's own
# loader and call tree on the command line (the timeline test loads its
# files with it; it asks for node 24 but runs on 20).
PM_NODE_PACKAGES="puppeteer-core@24.43.1 speedscope@1.25.0 @firefox-devtools/profiler-cli@0.10.0"
PM_NODE_DIR=${PM_NODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/perfmini/node}

pm_install_node_deps() {
	if [ -f "$PM_NODE_DIR/node_modules/puppeteer-core/package.json" ] &&
		[ -f "$PM_NODE_DIR/node_modules/speedscope/package.json" ] &&
		[ -f "$PM_NODE_DIR/.installed" ] &&
		[ "$(cat "$PM_NODE_DIR/.installed")" = "$PM_NODE_PACKAGES" ]; then
		return 0
	fi
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
		pm_install_deps nodejs npm || return 1
	fi
	pm_msg "installing into $PM_NODE_DIR: $PM_NODE_PACKAGES"
	mkdir -p "$PM_NODE_DIR" || return 1
	# shellcheck disable=SC2086 # the package list, one word each
	if ! npm install --prefix "$PM_NODE_DIR" --no-audit --no-fund --no-save --loglevel=error \
		$PM_NODE_PACKAGES >&2; then
		pm_msg "cannot install the npm packages: $PM_NODE_PACKAGES"
		return 1
	fi
	printf '%s\n' "$PM_NODE_PACKAGES" >"$PM_NODE_DIR/.installed"
}
