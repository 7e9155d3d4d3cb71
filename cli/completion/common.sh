# roofprof completion, shared by bash and zsh (cli/completion/; the option table above it is
# generated from the CLI11 definitions by roofprof --generate-docs).

# _roofprof_kind CWORD WORD0 WORD1 ...: what word CWORD of the command line (0: roofprof) is, as
# one line: "subcommand", "option SUB", "choice SUB OPTION", "region PROGRAM", "pid", "file",
# "result", "program" or "argument". PROGRAM is the program typed so far (after --, or the first
# word that is neither an option nor an option's value), wherever it stands on the line.
_roofprof_kind() {
  local cword=$1 i=0 w sub= prog= prog_at=0 value_of= cur_value_of= dashdash=0
  shift
  for w in "$@"; do
    if [ "$i" -ne 0 ] && [ "$prog_at" -eq 0 ]; then
      if [ -z "$sub" ] && [ "$i" -ne "$cword" ]; then
        case $w in
          -*) sub=run ;;
          *) sub=$w; i=$((i + 1)); continue ;;
        esac
      fi
      if [ "$i" -eq "$cword" ]; then
        cur_value_of=$value_of
        value_of=
      elif [ -n "$value_of" ]; then
        value_of=
      elif [ "$dashdash" -ne 0 ] || case $w in -*) false ;; *) true ;; esac; then
        _roofprof_takes_program "$sub" && { prog=$w; prog_at=$i; }
      elif [ "$w" = "--" ]; then
        dashdash=$i
      else
        case " $(_roofprof_valued "$sub") " in *" $w "*) value_of=$w ;; esac
      fi
    fi
    i=$((i + 1))
  done
  if [ "$cword" -eq 1 ]; then
    eval "w=\${2}"
    case $w in -*) ;; *) echo subcommand; return ;; esac
    sub=run
  fi
  if [ "$prog_at" -ne 0 ] && [ "$cword" -ge "$prog_at" ]; then
    if [ "$cword" -eq "$prog_at" ]; then echo program; else echo argument; fi
    return
  fi
  if [ "$dashdash" -ne 0 ] && [ "$dashdash" -lt "$cword" ]; then echo program; return; fi
  case $cur_value_of in
    "") ;;
    -r|--region) echo "region $prog"; return ;;
    -p|--pid) echo pid; return ;;
    *)
      if [ -n "$(_roofprof_choices "$sub" "$cur_value_of")" ]; then echo "choice $sub $cur_value_of"; else echo file; fi
      return ;;
  esac
  eval "w=\${$((cword + 1))}"
  case $w in
    -*) echo "option $sub" ;;
    *)
      if [ "$sub" = report ]; then echo result
      elif _roofprof_takes_program "$sub"; then echo program
      else echo file
      fi ;;
  esac
}

# _roofprof_regions ROOFPROF PROGRAM PREFIX: the functions `roofprof symbols` lists in PROGRAM and
# its libraries whose names start with PREFIX (the mangled name where the demangled has spaces).
_roofprof_regions() {
  [ -n "$2" ] || return 0
  "$1" symbols -m "$3*" -- "$2" 2>/dev/null |
    sed -n -E 's/^ +(0x[0-9a-f]+|0)  //p' | sed -E 's/  \(inlined.*//; s/.*  \[(.*)\]$/\1/' |
    grep -v ' ' | sort -u
}
