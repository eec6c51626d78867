// The options that name a server, for every subcommand that reads its
// command line with CLI11: -h/--host, -p/--port, -U/--username and
// -d/--db/--dbname, spelled and explained as psql and pgbench spell them,
// and, where a command takes no other operand, the database as an operand
// (`pgrig tune mydb`, as `psql mydb`).  Defined once here so that every
// subcommand accepts the same spellings with the same help text.
//
// `pgrig bench` and `pgrig init` read pgbench's own command line
// (workload/pgbench_options.h), which has these options too, and do not use
// this.
#ifndef PGRIG_PG_CONNECTION_OPTIONS_H_
#define PGRIG_PG_CONNECTION_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <string>

#include "common/status.h"
#include "pg/connection.h"

namespace pgrig::pg {

// Adds -h -p -U -d to `app`, storing into `*params`, which must outlive the
// parse.  -h is the host, as in psql and pgbench, so help is --help alone
// (set here; callers may set it too).
void AddConnectionOptions(CLI::App* app, ConnectionParams* params);

// The same, and the database operand, stored into `*operand`; after the
// parse, UseDatabaseOperand() puts it where it belongs.
void AddConnectionOptions(CLI::App* app, ConnectionParams* params, std::string* operand);

// After the parse: the operand names the database.  Both -d and an operand
// are refused (which one was meant is a guess), as pgrig bench and init
// refuse --db with an operand.
Status UseDatabaseOperand(ConnectionParams* params, const std::string& operand);

}  // namespace pgrig::pg

#endif  // PGRIG_PG_CONNECTION_OPTIONS_H_
