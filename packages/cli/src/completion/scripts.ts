/**
 * `notify completion <shell>`: a script that asks `notify --get-yargs-completions <words…>` for
 * the candidates at the cursor, so every shell completes from the parser's own table (commands,
 * flags, and the values a flag takes). Each shell only filters and shows them.
 */
export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];

export const COMPLETION_SCRIPTS: Record<Shell, string> = {
  bash: `###-begin-notify-completions-###
# notify completion for bash: add to ~/.bashrc with  notify completion bash >> ~/.bashrc
_notify_completions() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  local IFS=$'\\n'
  COMPREPLY=($(compgen -W "$(notify --get-yargs-completions "\${COMP_WORDS[@]:0:COMP_CWORD+1}" 2>/dev/null)" -- "$cur"))
}
complete -o default -F _notify_completions notify
###-end-notify-completions-###
`,
  zsh: `#compdef notify
###-begin-notify-completions-###
# notify completion for zsh: add to ~/.zshrc with  notify completion zsh >> ~/.zshrc
# (after compinit)
_notify_candidates() {
  notify --get-yargs-completions "$@" 2>/dev/null
}
_notify() {
  local -a candidates
  candidates=("\${(@f)$(_notify_candidates "\${words[@]:0:$CURRENT}")}")
  compadd -- \${candidates:#}
}
compdef _notify notify
###-end-notify-completions-###
`,
  fish: `# notify completion for fish: save with
#   notify completion fish > ~/.config/fish/completions/notify.fish
function __notify_complete
    notify --get-yargs-completions (commandline -opc) (commandline -ct) 2>/dev/null
end
complete -c notify -f -a '(__notify_complete)'
`,
  powershell: `# notify completion for PowerShell: add to $PROFILE with
#   notify completion powershell >> $PROFILE
Register-ArgumentCompleter -Native -CommandName notify -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @($commandAst.CommandElements | ForEach-Object { $_.ToString() })
    if ($wordToComplete -eq '') { $words += '' }
    notify --get-yargs-completions @words 2>$null |
        Where-Object { $_ -like "$wordToComplete*" } |
        ForEach-Object { [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_) }
}
`,
};

/** The shell to write for when none is named: the one in $SHELL, else bash. */
export function shellOf(env: NodeJS.ProcessEnv): Shell {
  const name = (env.SHELL ?? '').split('/').pop() ?? '';
  if (name === 'pwsh' || name === 'powershell') return 'powershell';
  return (SHELLS as readonly string[]).includes(name) ? (name as Shell) : 'bash';
}
