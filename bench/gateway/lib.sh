# Shared by the gateway benchmark scripts (sourced).

# port_of FILE [SECONDS]: the port of FILE's "listening on" line, waiting up
# to SECONDS (default 10) for it.
port_of() {
  local tries=$(( ${2:-10} * 20 )) p
  for _ in $(seq "$tries"); do
    p=$(grep -aoE 'listening on https?://127\.0\.0\.1:[0-9]*' "$1" 2>/dev/null | grep -o '[0-9]*$' || true)
    [ -n "$p" ] && { echo "$p"; return 0; }
    sleep 0.05
  done
  echo "no port in $1" >&2; return 1
}
