# Sourced by the check scripts that start `troupe serve` in the background.
# wait_for_server URL PID LOG TRIES: polls URL every 0.2 s until it answers; if the server
# process PID ends first, prints its LOG and exits 1. After TRIES polls it gives up waiting and
# lets the caller's first request report what is wrong.
wait_for_server() {
  local url=$1 pid=$2 log=$3 tries=$4
  for _ in $(seq 1 "$tries"); do
    curl -sf "$url" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.2
  done
}
