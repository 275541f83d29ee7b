# shellcheck shell=bash
# The steps of a restore to a moment that deploy/stack and deploy/lab share; both source this file, and define
# say and die. They differ in how they reach a server: a step that acts on one takes, as its first arguments, the
# command that runs psql (or bash) there. docs/operations.md, "Backups and restores", says what a restore does.

# restore_moment USAGE ARGUMENTS...: the moment of `restore --to MOMENT`, refused before anything is touched when
# it is not one or is in the future. Sets RESTORE_TARGET, and RESTORE_OPTIONS: pgBackRest's for it (the last backup
# before the moment and the WAL up to it, files already right kept, promoted there).
restore_moment() {
  local usage="$1"
  shift
  [ "${1:-}" = --to ] && [ -n "${2:-}" ] && [ $# -eq 2 ] || die "usage: $usage --to 'YYYY-MM-DD HH:MM:SS+00'"
  [[ "$2" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}[\ T][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?(Z|[+-][0-9]{2}(:?[0-9]{2})?)$ ]] \
    || die "'$2' is not a moment with its time zone, as 'YYYY-MM-DD HH:MM:SS+00'"
  [ "$(date -u -d "$2" +%s 2>/dev/null || echo 0)" -le "$(date -u +%s)" ] || die "'$2' is in the future"
  # shellcheck disable=SC2034
  RESTORE_TARGET="$2"
  # shellcheck disable=SC2034
  RESTORE_OPTIONS=(--delta --type=time "--target=$2" --target-action=promote)
}

# wal_archive_now PSQL...: every change so far into the repository, so that a restore can reach any moment up to
# now: the master's WAL segment is closed, and waited for (60 s at most) until its archiver has sent it or a later
# one. PSQL runs psql -tA on the master.
wal_archive_now() {
  local segment last
  segment="$("$@" -c 'SELECT pg_walfile_name(pg_switch_wal())')" || return 1
  for _ in $(seq 1 600); do
    last="$("$@" -c 'SELECT last_archived_wal FROM pg_stat_archiver')" || last=""
    [ -n "$last" ] && { [[ "$last" > "$segment" ]] || [ "$last" = "$segment" ]; } && return 0
    sleep 0.1
  done
  return 1
}

# recovery_settings_reset PSQL...: the recovery settings pgBackRest wrote into postgresql.auto.conf (its
# restore_command, the target) removed once the restored server is promoted: a replica copied from it would
# otherwise stop at the same moment, and replay from the repository rather than stream. PSQL runs psql there.
recovery_settings_reset() {
  "$@" -v ON_ERROR_STOP=1 -c 'ALTER SYSTEM RESET restore_command' -c 'ALTER SYSTEM RESET recovery_target_time' \
    -c 'ALTER SYSTEM RESET recovery_target_action' -c 'SELECT pg_reload_conf()' >/dev/null
}

# memcached_flush ADDRESS PORT [VIA...]: the definition cache at ADDRESS:PORT emptied, since it may hold what no
# longer exists; VIA runs bash where that address is reached (nothing: here).
memcached_flush() {
  "${@:3}" bash -c 'exec 3<>"/dev/tcp/$0/$1" && printf "flush_all\r\nquit\r\n" >&3 && head -c 2 <&3' "$1" "$2" \
    >/dev/null 2>&1
}
