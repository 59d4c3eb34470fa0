#!/bin/sh
# The ctest fixture of a burn server on a free port of 127.0.0.1:
#   server_fixture.sh start DIR SERVER [SERVER ARGS...]  starts it, waits (20 s at most) until it listens
#   server_fixture.sh run DIR COMMAND [ARGS...]          runs COMMAND with @ADDRESS@ in ARGS replaced
#   server_fixture.sh stop DIR                           stops it (SIGTERM, then SIGKILL after 5 s)
set -eu
action=$1
dir=$2
shift 2
case "$action" in
start)
  mkdir -p "$dir"
  rm -f "$dir/address" "$dir/pid"
  # The files exist before the server starts: the background job opens them only after the fork, and
  # the first read below may come before it does.
  : >"$dir/out"
  : >"$dir/err"
  "$@" --listen 127.0.0.1:0 --quiet </dev/null >>"$dir/out" 2>>"$dir/err" &
  echo $! >"$dir/pid"
  i=0
  while [ $i -lt 200 ]; do
    address=$(sed -n 's/^burn server: listening on \(tcp:\/\/[^ ]*\).*/\1/p' "$dir/out" || true)
    if [ -n "$address" ]; then
      echo "$address" >"$dir/address"
      echo "burn server at $address (pid $(cat "$dir/pid"))"
      exit 0
    fi
    if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
      echo "burn server exited:" >&2
      cat "$dir/err" >&2
      exit 1
    fi
    sleep 0.1
    i=$((i + 1))
  done
  echo "burn server did not listen within 20 s" >&2
  exit 1
  ;;
run)
  address=$(cat "$dir/address")
  cmd=$1
  shift
  for a in "$@"; do
    set -- "$@" "$(printf '%s' "$a" | sed "s#@ADDRESS@#$address#g")"
    shift
  done
  exec "$cmd" "$@"
  ;;
stop)
  [ -f "$dir/pid" ] || exit 0
  pid=$(cat "$dir/pid")
  kill "$pid" 2>/dev/null || exit 0
  i=0
  while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/pid"
  ;;
*)
  echo "usage: server_fixture.sh start|run|stop DIR ..." >&2
  exit 2
  ;;
esac
