# bash completion for netsched-sim (installed by `make install` into
# $(PREFIX)/share/bash-completion/completions/netsched-sim).
# Options, policy names and enumerated values are read from the program
# itself (--help, --list), so this file never goes stale.
_netsched_sim() {
  local cur prev words
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  local prog=${COMP_WORDS[0]}
  case $prev in
    --policy)
      local names last
      names=$("$prog" --list 2>/dev/null | awk '{print $1}')
      # complete the last name of a comma-separated list
      local head=${cur%,*} tail=${cur##*,}
      [ "$head" = "$cur" ] && head= || head="$head,"
      COMPREPLY=($(compgen -P "$head" -W "$names" -- "$tail"))
      return ;;
    --trace|--csv|--summary-csv|--json|--plot|--models|--gittins-dist)
      COMPREPLY=($(compgen -f -- "$cur"))
      return ;;
    --contention-curve)
      COMPREPLY=($(compgen -W "ideal default" -- "$cur") $(compgen -f -- "$cur"))
      return ;;
  esac
  # an option documented as "--opt a|b|c" completes to a, b or c
  if [[ $prev == --* ]]; then
    local vals
    vals=$("$prog" --help 2>/dev/null | grep -o -- "$prev [a-z0-9-]*\(|[a-z0-9-]*\)\+" | head -n1)
    if [ -n "$vals" ]; then
      COMPREPLY=($(compgen -W "$(echo "${vals#* }" | tr '|' ' ')" -- "$cur"))
      return
    fi
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$("$prog" --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur"))
  fi
}
complete -F _netsched_sim netsched-sim
