// Server facts over a live connection, shared by the commands that report
// them (facts, tune, bench --json).
//
// host::CollectServerFacts() asks through an abstract QueryFn so that the
// host module does not depend on libpq; this adapter binds it to a
// pg::Connection.  The functions only read (SELECTs, pg_config, files) and
// borrow the connection for the duration of the call.
#ifndef PGRIG_CLI_SERVER_PROBE_H_
#define PGRIG_CLI_SERVER_PROBE_H_

#include <nlohmann/json.hpp>

#include "host/host_facts.h"
#include "host/server_facts.h"
#include "pg/connection.h"

namespace pgrig::cli {

// A QueryFn that runs each statement on `conn` (which must outlive it).
host::QueryFn QueryOver(pg::Connection* conn);

// The server's facts, with this machine's facts used for "fits in RAM" and
// build probes when the server is local.  When it is local and `host` (of
// this machine, sysroot "/") has no storage facts yet, they are filled in
// for the server's data directory.
host::ServerFacts ProbeServer(pg::Connection& conn, host::HostFacts* host);

// The facts document (pgrig.facts/1) of this machine and the server on
// `conn`, as a results document records it: what `bench`, `lio run`,
// `tpcc run` and fleet's clients put under "facts".
nlohmann::json FactsDocument(pg::Connection& conn);

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_SERVER_PROBE_H_
