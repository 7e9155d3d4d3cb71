#!/usr/bin/env bash
# The bash and zsh completions complete subcommands, options (also of the implicit
# `run`), the values of options that accept a few, region names from `roofprof symbols` of the
# program typed so far (wherever it stands on the line), pids, result files and the program.
# Usage: completion.sh BUILD
BUILD=$1
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
scratch
R=$BUILD/bin/roofprof
cp "$BUILD/examples/demo" "$SCRATCH/demo"
mkdir "$SCRATCH/results.d" && touch "$SCRATCH/a.json" "$SCRATCH/b.txt"
cd "$SCRATCH"

# bash: COMP_WORDS / COMP_CWORD as readline sets them, COMPREPLY one per line.
bash_at() { # CWORD WORDS...
  bash -c '. "$1"; shift; COMP_CWORD=$1; shift; COMP_WORDS=("$@"); _roofprof; printf "%s\n" "${COMPREPLY[@]}"' \
    sh "$BUILD/share/bash-completion/completions/roofprof" "$@"
}
bash_end() { bash_at $(($# - 1)) "$@"; }
# zsh: words / CURRENT / PREFIX, compadd (matching PREFIX, as zsh's does) and the file helpers
# stubbed to print their words.
zsh_at() { # CWORD WORDS...
  zsh -f -c 'compadd() { [[ $1 == -- ]] && shift; local w
               for w in "$@"; do [[ $w == ${PREFIX}* ]] && print -r -- $w; done; return 0; }
             _files() { print -l -- "files:$*"; }; _pids() { print pids; }; _command_names() { print commands; }
             CURRENT=$(($1 + 1)); shift; words=("$@"); PREFIX=${words[CURRENT]}; source "$0"' \
    "$BUILD/share/zsh/site-functions/_roofprof" "$@"
}
zsh_end() { zsh_at $(($# - 1)) "$@"; }
has() { # WORD COMMAND... : the completion offers WORD
  local word=$1 out
  shift
  out=$("$@")
  grep -qxF -- "$word" <<<"$out" || fail "'$*' offers no '$word': $(echo $out)"
}
lacks() {
  local word=$1 out
  shift
  out=$("$@")
  if grep -qxF -- "$word" <<<"$out"; then fail "'$*' offers '$word'"; fi
}

shells=(bash)
command -v zsh >/dev/null && shells+=(zsh) || echo "note: zsh not installed, its completion not run" >&2
for sh in "${shells[@]}"; do
  end=${sh}_end at=${sh}_at
  has run $end "$R" ''
  has report $end "$R" re
  lacks run $end "$R" re
  has --region $end "$R" run --reg
  has --region $end "$R" --reg                            # the implicit run
  has --no-plot $end "$R" report --no
  has emul $end "$R" run --backend ''
  has daxpy $at 3 "$R" run --region da -- ./demo 200 20   # the program after the cursor
  has daxpy $at 2 "$R" -r dax -- ./demo                  # the implicit run
done
has a.json bash_end "$R" report ''
has results.d bash_end "$R" report ''
lacks b.txt bash_end "$R" report ''
has ls bash_end "$R" run -- l
has "$$" bash_end "$R" run --pid "$$"
if command -v zsh >/dev/null; then
  has "files:-g *.json" zsh_end "$R" report ''
  has commands zsh_end "$R" run -- l
  has pids zsh_end "$R" run -p ''
fi
echo "completion: ${shells[*]}"
