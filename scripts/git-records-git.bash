# `git records <TAB>`: git's bash completion (git-completion.bash) calls
# _git_<subcommand> for a command it does not know, with words, cword and
# cur set. This asks git-records itself (cobra's __complete) for what may
# follow the words typed so far; descriptions are dropped, as git's
# completion shows plain words.
_git_records ()
{
	local i start=-1
	for ((i = 1; i < cword; i++)); do
		if [ "${words[i]}" = records ]; then
			start=$((i + 1))
			break
		fi
	done
	[ "$start" -ge 0 ] || return
	local out
	out=$(git-records __complete "${words[@]:start:cword-start}" "$cur" 2>/dev/null) || return
	__gitcomp_nl "$(printf '%s\n' "$out" | sed -e '/^:[0-9]*$/d' -e 's/\t.*//')"
}
