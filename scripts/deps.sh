#!/bin/bash
# make deps (and the first step of every build rule): which Debian packages
# the goals need are missing, and, for the set-up goals as root, installing
# them.  Arguments: PACKAGE=PROBE, where PROBE is h:<header> (compiled with
# $DEPS_CC), c:<command>, or empty (asked of dpkg).  Environment, from the
# Makefile: DEPS_CC, DEPS_GOALS (for the message), DEPS_INSTALL (yes: may
# install), DEPS_PRETEND_MISSING (packages to treat as absent).
set -u
missing=""
for arg in "$@"; do
  p=${arg%%=*} probe=${arg#*=}
  case " ${DEPS_PRETEND_MISSING:-} " in *" $p "*) missing="$missing $p"; continue;; esac
  case "$probe" in
    h:*) printf '#include <%s>\n' "${probe#h:}" | $DEPS_CC -E -x c - >/dev/null 2>&1 || missing="$missing $p";;
    c:*) command -v "${probe#c:}" >/dev/null 2>&1 || missing="$missing $p";;
    *) dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p";;
  esac
done
[ -z "$missing" ] && exit 0
if [ -n "${DEPS_INSTALL:-}" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 &&
   [ -z "${DEPS_PRETEND_MISSING:-}" ]; then
  echo "deps: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  # shellcheck disable=SC2086 # one word a package
  apt-get update -qq && apt-get install -y -qq$missing >/dev/null ||
    { echo "deps: apt-get install$missing failed" >&2; exit 1; }
else
  echo "deps: '${DEPS_GOALS:-}' needs these Debian packages, not found:$missing" >&2
  echo "deps: install them (sudo apt-get install -y$missing, or make deps as root)," >&2
  echo "deps: or point MPICC/MPIRUN at an MPI from modules or Spack (README, 'Building without root')" >&2
  exit 1
fi
