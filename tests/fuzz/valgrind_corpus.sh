#!/bin/sh
# tests/fuzz/valgrind_corpus.sh: every file of the image fuzzing corpus (tests/fuzz/corpus/image)
# loaded by a plain build's fv_load_corpus under valgrind's memcheck: any error (an output byte
# never written and then used, a read out of bounds, a bad free) fails. Sanitizers cannot see a
# read of uninitialised memory (MemorySanitizer would need every library rebuilt); memcheck can.
# Exit 77 (skipped) only when valgrind is not installed. The build must not be an FV_SANITIZE one.
#   sh tests/fuzz/valgrind_corpus.sh BUILD_DIR
set -u
build="${1:?usage: valgrind_corpus.sh BUILD_DIR}"
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind is not installed: skipped"
  exit 77
fi
exe="$build/tests/fv_load_corpus"
if [ ! -x "$exe" ]; then
  echo "$exe: not built (target fv_load_corpus)"
  exit 1
fi
set -- "$here"/corpus/image/*
echo "memcheck over $# files of $here/corpus/image"
valgrind --tool=memcheck --error-exitcode=1 --track-origins=yes --quiet "$exe" "$@"
code=$?
if [ "$code" = 0 ]; then echo "valgrind_corpus: no memcheck errors"; else echo "valgrind_corpus: FAILED (exit $code)"; fi
exit $code
