#!/usr/bin/env bash
# The man pages are generated from the CLI11 definitions --help prints, so they cannot
# drift: one page per subcommand (and roofprof(1) naming them all), every option of
# `roofprof SUB --help` in roofprof-SUB(1), each page rendered by groff without a warning, and
# the pages the build wrote equal to what `roofprof --man` prints now.
# Usage: man_pages.sh BUILD
BUILD=$1
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
scratch
R=$BUILD/bin/roofprof
MAN=$BUILD/share/man/man1
subs=$("$R" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF {print $1}')
[ -n "$subs" ] || fail "no subcommands in roofprof --help"
render() { MANWIDTH=200 man -l "$1" 2>/dev/null; }
check_page() { # PAGE HELP-TEXT
  local page=$1 help=$2 warnings
  warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
  [ -z "$warnings" ] || fail "$page: groff: $warnings"
  render "$page" >"$SCRATCH/page"
  for opt in $(grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' <<<"$help" | tr -d ' ,' | sort -u); do
    grep -qF -- "$opt" "$SCRATCH/page" || fail "$(basename "$page"): $opt of --help is missing"
  done
}
check_page "$MAN/roofprof.1" "$("$R" --help | sed '/^Subcommands:/,$d')"
for s in $subs; do
  [ -f "$MAN/roofprof-$s.1" ] || fail "no roofprof-$s.1"
  render "$MAN/roofprof.1" | grep -q "roofprof $s" || fail "roofprof(1) does not name $s"
  check_page "$MAN/roofprof-$s.1" "$("$R" "$s" --help)"
  "$R" --man "$s" | cmp -s - "$MAN/roofprof-$s.1" || fail "roofprof-$s.1 differs from roofprof --man $s"
done
rc=0
"$R" --man nosuch 2>"$SCRATCH/err" || rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$SCRATCH/err")" -eq 1 ] || fail "--man nosuch: status $rc, $(cat "$SCRATCH/err")"
echo "man pages: roofprof(1) and $(echo $subs | wc -w) subcommand pages match --help"
