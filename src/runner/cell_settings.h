// Settings per benchmark cell: which ones travel in the connection, which
// need the server changed, and changing the server safely and back.
//
// A plan's settings (plan.h SettingsVariant, Plan::settings) are checked
// against the server's pg_settings before anything runs: an unknown name is
// an error naming it and the closest known one, a value PostgreSQL would
// refuse is an error naming the allowed range or values (tune::Validate does
// the range check).  pg_settings.context decides where each one goes:
//   user, superuser            -> per_connection: the libpq "options"
//                                  parameter ("-c name=value"), so every
//                                  benchmark connection starts with it and
//                                  the server's configuration is untouched;
//   sighup, postmaster,
//   superuser-backend, backend -> server: ALTER SYSTEM, reload, and for
//                                  postmaster ones a restart (embedded only).
//
// The server side (ServerSettings: ALTER SYSTEM, restarts, the restore
// marker) is in server_settings.h.
#ifndef PGRIG_RUNNER_CELL_SETTINGS_H_
#define PGRIG_RUNNER_CELL_SETTINGS_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "pg/connection.h"
#include "tune/recommend.h"

namespace pgrig::runner {

// Splits settings by pg_settings.context and applies them for one cell.
struct SplitSettings {
  std::map<std::string, std::string>
      per_connection;  // context user/superuser: go in the connection's options ("-c name=value")
  std::map<std::string, std::string>
      server;  // sighup/postmaster (and superuser-backend etc.): need the server changed
};

// Unknown names, values PostgreSQL would refuse (pg_settings
// min/max/enumvals/bool), are errors naming the setting.  Reads pg_settings
// over `conn`; changes nothing.
Result<SplitSettings> SplitAndValidate(pg::Connection& conn,
                                       const std::map<std::string, std::string>& settings);
// The same against a pg_settings table already read (tune::ReadCurrentSettings).
Result<SplitSettings> SplitAndValidate(const tune::CurrentSettings& pg_settings,
                                       const std::map<std::string, std::string>& settings);

// The libpq "options" value carrying per-connection settings, escaped as
// libpq requires (spaces and backslashes backslash-escaped):
// {"application_name": "a b"} -> "-c application_name=a\ b".
std::string ConnectionOptions(const std::map<std::string, std::string>& per_connection);

// `params` with per-connection settings added to its "options" (after any
// options it already has, or PGOPTIONS when it has none), for the engine's
// and every other connection of a cell.
pg::ConnectionParams WithConnectionSettings(
    pg::ConnectionParams params, const std::map<std::string, std::string>& per_connection);

}  // namespace pgrig::runner

#endif  // PGRIG_RUNNER_CELL_SETTINGS_H_
