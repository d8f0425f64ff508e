# The launcher's half of the warm client (cli/.../warm/WarmClient.java): a JVM of the user's that
# runs client commands without a JVM start each. Sourced by ./qm; bash builtins only on the way
# there and back (a /dev/tcp socket, printf, read), and `head` once per frame of output.

# The variables a client command reads (WarmRequest.VARIABLES) and the command words offered
# (WarmCommands.WORDS); WarmLauncherTest holds these lists to those.
qm_warm_variables=(QM_SERVER QM_TOKEN_FILE QM_CA_FILE QM_DEBUG XDG_CONFIG_HOME HOME LC_ALL LC_CTYPE LANG)
qm_warm_words=" get describe apply delete logs scale version config "

# qm_warm_offers WORD: whether the warm client may take a command of this word.
qm_warm_offers() {
  [ "${QM_WARM:-1}" != 0 ] && [[ "$qm_warm_words" == *" $1 "* ]]
}

# qm_warm_run ENDPOINT_FILE ARGS...: runs the command in the warm client the file names. Returns 0
# when it ran there, its exit code in qm_warm_exit; otherwise the caller runs it in a JVM of its
# own: 1 when no warm client of the user's answered (start one), 2 when it left the command to a
# JVM of its own (`cold`: a watch, a wait, standard input, help, or a jar rebuilt since it began).
qm_warm_run() {
  local endpoint="$1"; shift
  local port secret reply pid
  [ -f "$endpoint" ] && [ -O "$endpoint" ] || return 1
  read -r port secret reply pid <"$endpoint" || return 1
  [ -n "$pid" ] && [ -O "/proc/$pid" ] || return 1 # it is alive and it is ours
  { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || return 1
  local vars=() name
  for name in "${qm_warm_variables[@]}"; do
    [ -n "${!name+set}" ] && vars+=("$name=${!name}")
  done
  local answer token
  # The answer within 3 s, or the command runs in a JVM of its own (a warm client stopped, or
  # starved on a busy machine): it runs nothing until told `go`, so it never runs twice.
  if ! printf '%s\0' qm-warm/1 "$secret" "$PWD" "${#vars[@]}" "${vars[@]}" "$#" "$@" >&3 2>/dev/null \
    || ! read -t 3 -r -u 3 answer token || [ "$token" != "$reply" ]; then
    exec 3>&- # nothing ran: no answer, or not from our warm client
    return 1
  fi
  if [ "$answer" != run ] || ! printf 'go\n' >&3 2>/dev/null; then
    exec 3>&-
    return 2
  fi
  local kind len
  # A frame that cannot be written means the reader went away (`qm get nodes | head -3`): stop
  # there, quietly, as a process killed by SIGPIPE.
  while read -r -u 3 kind len; do
    case "$kind" in
      o) head -c "$len" <&3 2>/dev/null || { exec 3>&-; qm_warm_exit=141; return 0; } ;;
      e) head -c "$len" <&3 >&2 2>/dev/null || { exec 3>&-; qm_warm_exit=141; return 0; } ;;
      x) qm_warm_exit="$len"; exec 3>&-; return 0 ;;
      *) break ;;
    esac
  done
  exec 3>&-
  echo "qm: the warm client ended before the command did, which may or may not have taken effect (QM_WARM=0 runs commands without it)" >&2
  qm_warm_exit=1
  return 0
}

# qm_warm_start ENDPOINT_FILE JAR JAVA...: starts a warm client in the background, in a session of
# its own, its output in ENDPOINT_FILE.log. It exits at once when one is running or starting.
qm_warm_start() {
  local endpoint="$1" jar="$2"; shift 2
  (setsid "$@" -cp "$jar" dev.quartermaster.cli.warm.WarmClient "$endpoint" "$jar" \
    </dev/null >"$endpoint.log" 2>&1 &) 2>/dev/null # no warm client where it cannot write its files
  return 0
}
