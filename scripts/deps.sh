# shellcheck shell=bash
# deps.sh - sourced by scripts/demo and scripts/check: installs the Debian
# packages perfmini needs to build and test, only those that are missing.
#
# pm_install_deps [EXTRA_PACKAGE...]
#	Installs the missing ones of PM_BUILD_DEPS and EXTRA_PACKAGE with
#	apt-get; runs apt-get update/install only when something is missing.
#	Returns non-zero with a message when that is not possible.

# g++ brings the C++ runtime's development files, for demangling.
PM_BUILD_DEPS="libelf-dev libdw-dev libunwind-dev check autoconf automake libtool
pkg-config zlib1g-dev make gcc g++"
# What the test suite uses beyond the build: decoders and readers of the
# report formats (golang-go for go tool pprof).
PM_TEST_DEPS="protobuf-compiler python3 libxml2-utils lld debuginfod xz-utils binutils
util-linux mount bash-completion golang-go"

pm_msg() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
}

# Prints the packages of "$@" that are not installed, one per line.
pm_missing_packages() {
	local p
	for p in "$@"; do
		dpkg -s "$p" 2>/dev/null | grep -qx 'Status: install ok installed' ||
			printf '%s\n' "$p"
	done
}

pm_install_deps() {
	local missing

	if ! command -v dpkg >/dev/null 2>&1; then
		# shellcheck disable=SC2086
		pm_msg "no dpkg: not a Debian system; install by hand:" $PM_BUILD_DEPS "$@"
		return 0
	fi
	# shellcheck disable=SC2086 # word splitting of the package list is intended
	missing=$(pm_missing_packages $PM_BUILD_DEPS "$@")
	[ -z "$missing" ] && return 0
	missing=$(printf '%s' "$missing" | tr '\n' ' ')
	if [ "$(id -u)" -ne 0 ]; then
		pm_msg "missing packages: $missing"
		pm_msg "install them as root: apt-get install $missing"
		return 1
	fi
	pm_msg "installing: $missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	if ! apt-get update -qq || ! apt-get install -y -qq $missing; then
		pm_msg "cannot install: $missing"
		return 1
	fi
}
