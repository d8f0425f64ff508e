# Sourced by the crash-loop scripts: until_true SECONDS WHAT CMD... polls CMD every 0.3 s until it
# succeeds, and fails the script naming WHAT after SECONDS. CMD is run anew each time: pass a
# function, not "test $(...)" (its arguments are expanded once, at the call).
until_true() {
  local end=$((SECONDS + $1)) what=$2
  shift 2
  until "$@"; do
    if ((SECONDS > end)); then echo "FAIL: timed out waiting for $what" >&2; exit 1; fi
    sleep 0.3
  done
}
