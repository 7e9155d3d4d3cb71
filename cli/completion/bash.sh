_roofprof() {
  local cur=${COMP_WORDS[COMP_CWORD]} kind
  kind=$(_roofprof_kind "$COMP_CWORD" "${COMP_WORDS[@]}")
  case $kind in
    subcommand) COMPREPLY=($(compgen -W "$_roofprof_subcommands --help --version" -- "$cur")) ;;
    option\ *) COMPREPLY=($(compgen -W "$(_roofprof_options "${kind#option }")" -- "$cur")) ;;
    choice\ *) COMPREPLY=($(set -- $kind; compgen -W "$(_roofprof_choices "$2" "$3")" -- "$cur")) ;;
    region\ *) COMPREPLY=($(compgen -W "$(_roofprof_regions "${COMP_WORDS[0]}" "${kind#region }" "$cur")" \
                                   -- "$cur")) ;;
    pid) COMPREPLY=($(cd /proc && compgen -G "${cur}*" | grep -E '^[0-9]+$')) ;;
    result) compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur")) ;;
    program) compopt -o filenames 2>/dev/null
             COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur")) ;;
    *) compopt -o filenames 2>/dev/null
       COMPREPLY=($(compgen -f -- "$cur")) ;;
  esac
}
complete -F _roofprof roofprof
