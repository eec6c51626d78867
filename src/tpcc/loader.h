// `pgrig tpcc init`'s engine: creates the nine TPC-C tables (schema.h) and
// loads them with the rows of rows.h over several connections at once.
//
// The work is split by warehouse: the items in ten chunks, then for each
// warehouse its row and districts, its stock in four chunks, and for each
// district its customers with their history and its orders with their
// lines and new orders: 2 + 4 + 20 COPYs a warehouse, taken in turn by
// `jobs` connections, each COPY ... FROM STDIN in text format and its own
// transaction.  Then the primary keys (one ALTER TABLE per table, in
// parallel), the two secondary indexes, the foreign keys when asked for,
// and VACUUM ANALYZE of each table.  The rows depend only on the seed and
// the load's timestamp (rows.h), never on `jobs`.
//
// The load's NURand constants and seed are kept in a one-row table
// tpcc_load, which `tpcc run` reads to draw its own C_LAST constant at the
// distance clause 2.1.6.1 asks for, and `tpcc check` to know the load.
// Its row is written last, after the VACUUM: a load killed half-way (where
// nothing could drop its tables) leaves tpcc_load empty, and ReadLoad
// (run.h) refuses it.
//
// Failure: the first error stops the load (the other connections stop at
// their next chunk of rows and close, which aborts their COPY) and the
// tables this load created are dropped again, so a failed load leaves no
// half-loaded tables.  Cancel() (any thread) does the same.
//
// Thread-safety: Run() once, from one thread; Cancel() from any.
#ifndef PGRIG_TPCC_LOADER_H_
#define PGRIG_TPCC_LOADER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "common/status.h"
#include "pg/connection.h"
#include "tpcc/random.h"
#include "tpcc/schema.h"

namespace pgrig::tpcc {

struct LoadOptions {
  int warehouses = 1;
  SchemaOptions schema;
  int jobs = 1;  // connections loading at once
  uint64_t seed = 0;
  bool foreign_keys = false;
  bool procedures = false;  // create the five transactions' functions (procedures.h)
  // The timestamp every time column gets ("YYYY-MM-DD HH:MM:SS"); empty:
  // the server's clock when the load starts.
  std::string now;
};

struct LoadReport {
  NURandConstants constants;
  std::string now;
  int64_t rows = 0;
  int64_t bytes = 0;        // COPY text sent
  double seconds = 0;       // the whole load, keys and VACUUM included
  double load_seconds = 0;  // the COPYs alone
};

class Loader {
 public:
  // `say` gets a line per phase (created, loaded, keyed, vacuumed); when
  // `*interrupted` becomes true (InterruptScope::flag()) the load stops as
  // Cancel() stops it.
  Loader(pg::ConnectionParams params, LoadOptions options,
         std::function<void(const std::string&)> say = {},
         const std::atomic<bool>* interrupted = nullptr);

  Result<LoadReport> Run();
  void Cancel() { cancelled_.store(true); }

 private:
  bool Cancelled() const {
    return cancelled_.load() || (interrupted_ != nullptr && interrupted_->load());
  }

  pg::ConnectionParams params_;
  LoadOptions o_;
  std::function<void(const std::string&)> say_;
  const std::atomic<bool>* interrupted_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace pgrig::tpcc

#endif  // PGRIG_TPCC_LOADER_H_
