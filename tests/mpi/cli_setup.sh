# Sourced by the --mpi CLI tests with their arguments (LWT MPIEXEC [MPIEXEC FLAGS...]): sets lwt
# and run (the mpirun command line), skips (77) without python3 + numpy, moves into a temporary
# folder removed at exit, and defines check (a command that must succeed) with fail=1 on failure.
lwt=$1
shift
run="$*"
python3 -c "import numpy" 2>/dev/null || { echo "SKIP: numpy not importable"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
check() { # what, then the command that must succeed
  what=$1; shift
  if ! "$@" > out.txt 2>&1; then echo "FAIL: $what: exit status $?"; cat out.txt; fail=1; fi
}
