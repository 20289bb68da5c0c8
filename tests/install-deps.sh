#!/bin/sh
# tests/install-deps.sh - installs what building and testing mprof needs on
# Debian 12 (run as root, or as a user with sudo).  Safe to run again.
#   build:   build-essential (gcc, g++, make), autoconf, automake, libtool, pkg-config,
#            libdw-dev + libelf-dev (symbolization), libiberty-dev (Rust
#            demangling), zlib1g-dev and libdeflate-dev (trace compression),
#            libcunit1-dev (unit tests)
#   runtime: libunwind8 (the shim loads it with dlopen)
#   tests:   python3 (report checks); real programs to profile, one per runtime:
#            sqlite3, rustc (Debian's, /usr/bin/rustc; also Rust names),
#            default-jdk-headless (java and javac), ruby, golang-go (cgo; Go
#            frames), nodejs (worker_threads); the clients of the report
#            formats: valgrind (ms_print, dh_view.html), massif-visualizer
#            (KDE's, run under xvfb's virtual X server), strace (the threads
#            a report makes), chromium (Debian's,
#            for the pages), npm when nodejs lacks it (then tests/browser's
#            playwright-core and speedscope from the npm registry, as
#            package-lock.json pins them); on amd64, gcc-multilib (the
#            32-bit programs of foreign-class.sh and foreign-child.sh)
# With --build, only the build and runtime packages (enough for `make demo`;
# the tests' real programs are some 500 MB more).
set -eu
browser=""
packages="build-essential autoconf automake libtool pkg-config libdw-dev libelf-dev
libiberty-dev zlib1g-dev libdeflate-dev libcunit1-dev libunwind8"
case "${1:-}" in
--build) ;;
"") packages="$packages python3 sqlite3 rustc default-jdk-headless ruby golang-go nodejs libboost-context-dev libgc-dev
valgrind chromium massif-visualizer xvfb strace"
	browser=1 ;;
*)
	echo "usage: tests/install-deps.sh [--build]" >&2
	exit 2
	;;
esac
# 32-bit test programs (gcc -m32), where Debian has the package
[ -z "$browser" ] || [ "$(dpkg --print-architecture 2>/dev/null)" != amd64 ] ||
	packages="$packages gcc-multilib"
# speedscope's schema check (report-speedscope.sh)
[ -z "$browser" ] || packages="$packages python3-jsonschema"
if [ "$(id -u)" -eq 0 ]; then
	run=""
elif command -v sudo >/dev/null 2>&1; then
	run="sudo"
else
	echo "install-deps: run as root (or install sudo) to install: $packages" >&2
	exit 1
fi
missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "install-deps: every package is installed"
else
	echo "install-deps: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	# A fresh machine's boot-time upgrade may hold the package locks for a
	# while: wait for them (up to 10 minutes) rather than fail.
	lock="-o DPkg::Lock::Timeout=600"
	# shellcheck disable=SC2086
	$run apt-get $lock update -qq || { sleep 30; $run apt-get $lock update -qq; }
	# shellcheck disable=SC2086
	$run apt-get $lock install -y -qq --no-install-recommends $missing
fi
# The browser checks' node modules, exactly as the lock file pins them.
if [ -n "$browser" ]; then
	# shellcheck disable=SC2086
	command -v npm >/dev/null 2>&1 ||
		$run apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends npm
	dir="$(dirname "$0")/browser"
	if [ -f "$dir/node_modules/.package-lock.json" ] &&
		cmp -s "$dir/package-lock.json" "$dir/node_modules/.mprof-lock"; then
		echo "install-deps: tests/browser's node modules are installed"
	else
		(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) &&
			cp "$dir/package-lock.json" "$dir/node_modules/.mprof-lock"
	fi
fi
