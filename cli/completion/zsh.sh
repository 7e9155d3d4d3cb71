_roofprof() {
  local kind
  kind=$(_roofprof_kind $((CURRENT - 1)) "${words[@]}")
  case $kind in
    subcommand) compadd -- ${=_roofprof_subcommands} --help --version ;;
    option\ *) compadd -- ${=$(_roofprof_options ${kind#option })} ;;
    choice\ *) compadd -- ${=$(_roofprof_choices ${=${kind#choice }})} ;;
    region\ *) compadd -- ${(f)"$(_roofprof_regions ${words[1]} ${kind#region } $PREFIX)"} ;;
    pid) _pids ;;
    result) _files -g '*.json' ;;
    program) _command_names -e; _files ;;
    *) _files ;;
  esac
}
_roofprof "$@"
