#include "tpcc/loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "tpcc/procedures.h"
#include "tpcc/rows.h"

namespace pgrig::tpcc {

namespace {

constexpr int kItemChunks = 10;
constexpr int kStockChunks = 4;
constexpr size_t kPutBytes = 1 << 20;

using Task = std::function<Status(pg::Connection&)>;

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs `tasks` on up to `jobs` connections of their own, each taking the
// next task when it is done; the first error stops the others at their next
// task (and `cancelled` at any time).
Status RunParallel(const pg::ConnectionParams& params, int jobs, const std::vector<Task>& tasks,
                   const std::function<bool()>& cancelled) {
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mu;
  Status first = Status::Ok();
  auto fail = [&](Status s) {
    std::lock_guard<std::mutex> lock(mu);
    if (first.ok()) first = std::move(s);
    failed.store(true);
  };
  auto work = [&] {
    auto conn = pg::Connect(params);
    if (!conn.ok()) return fail(conn.status());
    while (!failed.load() && !cancelled()) {
      const size_t i = next.fetch_add(1);
      if (i >= tasks.size()) return;
      if (Status s = tasks[i](*conn); !s.ok()) return fail(std::move(s));
    }
  };
  const size_t n = std::min(tasks.size(), static_cast<size_t>(std::max(jobs, 1)));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < n; ++i) threads.emplace_back(work);
  for (std::thread& t : threads) t.join();
  if (!first.ok()) return first;
  if (cancelled()) return Aborted("the load was interrupted");
  return Status::Ok();
}

// COPY table FROM STDIN of `rows`, sent in pieces, stopping when cancelled.
Status Copy(pg::Connection& c, std::string_view table, const std::string& rows,
            const std::function<bool()>& cancelled) {
  PGRIG_RETURN_IF_ERROR(c.CopyBegin(fmt::format("COPY {} FROM STDIN", table)));
  for (size_t at = 0; at < rows.size(); at += kPutBytes) {
    if (cancelled()) return Aborted("the load was interrupted");
    PGRIG_RETURN_IF_ERROR(c.CopyPut(std::string_view(rows).substr(at, kPutBytes)));
  }
  return c.CopyEnd();
}

}  // namespace

Loader::Loader(pg::ConnectionParams params, LoadOptions options,
               std::function<void(const std::string&)> say, const std::atomic<bool>* interrupted)
    : params_(std::move(params)),
      o_(std::move(options)),
      say_(std::move(say)),
      interrupted_(interrupted) {}

Result<LoadReport> Loader::Run() {
  const auto t0 = std::chrono::steady_clock::now();
  auto say = [&](const std::string& line) {
    if (say_) say_(line);
  };
  PGRIG_ASSIGN_OR_RETURN(pg::Connection main, pg::Connect(params_));
  LoadReport report;
  report.now = o_.now;
  if (report.now.empty()) {
    PGRIG_ASSIGN_OR_RETURN(report.now,
                           main.QueryValue("SELECT to_char(now(), 'YYYY-MM-DD HH24:MI:SS')"));
  }
  Prng constants_rng = UnitRng(o_.seed, LoadTable::kItem, -1, -1);
  report.constants = NURandConstants::ForLoad(constants_rng);

  // The tables, created in one transaction.
  std::string create = "SET client_min_messages = warning; BEGIN; " + DropTablesSql() +
                       "; DROP TABLE IF EXISTS tpcc_load; ";
  for (const TableDef& t : Tables()) {
    for (const std::string& sql : CreateTableSql(t, o_.schema)) create += sql + "; ";
  }
  // tpcc_load's row is written last, once everything is in place: a load
  // that was killed leaves an empty tpcc_load, which ReadLoad refuses.
  create +=
      "CREATE TABLE tpcc_load (seed numeric NOT NULL, warehouses integer NOT NULL, "
      "c_last integer NOT NULL, c_id integer NOT NULL, ol_i_id integer NOT NULL, "
      "loaded_at timestamp NOT NULL, partitions integer NOT NULL); COMMIT";
  PGRIG_RETURN_IF_ERROR(main.Exec(create).status());
  auto drop_on_failure = [&](Status s) -> Status {
    (void)main.Exec(DropTablesSql() + "; DROP TABLE IF EXISTS tpcc_load");
    return s;
  };
  say(fmt::format(
      "created the nine tables{}",
      o_.schema.partitions > 0
          ? fmt::format(" ({} hash partitions of the six large ones)", o_.schema.partitions)
          : ""));

  // The rows.
  std::atomic<int64_t> rows{0};
  std::atomic<int64_t> bytes{0};
  const uint64_t seed = o_.seed;
  const std::string now = report.now;
  const NURandConstants load = report.constants;
  const std::function<bool()> cancelled = [this] { return Cancelled(); };
  auto copy = [&](pg::Connection& c, std::string_view table, const std::string& text) {
    rows.fetch_add(std::count(text.begin(), text.end(), '\n'));
    bytes.fetch_add(static_cast<int64_t>(text.size()));
    return Copy(c, table, text, cancelled);
  };
  std::vector<Task> tasks;
  for (int chunk = 0; chunk < kItemChunks; ++chunk) {
    tasks.push_back([&, chunk](pg::Connection& c) {
      Prng rng = UnitRng(seed, LoadTable::kItem, 0, chunk);
      std::string text;
      const int per = kItems / kItemChunks;
      AppendItemRows(rng, chunk * per + 1, (chunk + 1) * per, &text);
      return copy(c, "item", text);
    });
  }
  for (int w = 1; w <= o_.warehouses; ++w) {
    tasks.push_back([&, w](pg::Connection& c) {
      Prng rng = UnitRng(seed, LoadTable::kWarehouse, w, 0);
      std::string warehouse, districts;
      AppendWarehouseRow(rng, w, &warehouse);
      Prng drng = UnitRng(seed, LoadTable::kDistrict, w, 0);
      AppendDistrictRows(drng, w, &districts);
      PGRIG_RETURN_IF_ERROR(copy(c, "warehouse", warehouse));
      return copy(c, "district", districts);
    });
    for (int chunk = 0; chunk < kStockChunks; ++chunk) {
      tasks.push_back([&, w, chunk](pg::Connection& c) {
        Prng rng = UnitRng(seed, LoadTable::kStock, w, chunk);
        std::string text;
        const int per = kItems / kStockChunks;
        AppendStockRows(rng, w, chunk * per + 1, (chunk + 1) * per, &text);
        return copy(c, "stock", text);
      });
    }
    for (int d = 1; d <= kDistrictsPerWarehouse; ++d) {
      tasks.push_back([&, w, d](pg::Connection& c) {
        Prng rng = UnitRng(seed, LoadTable::kCustomer, w, d);
        std::string customers, history;
        AppendCustomerRows(rng, load, w, d, now, &customers);
        Prng hrng = UnitRng(seed, LoadTable::kHistory, w, d);
        AppendHistoryRows(hrng, w, d, now, &history);
        PGRIG_RETURN_IF_ERROR(copy(c, "customer", customers));
        return copy(c, "history", history);
      });
      tasks.push_back([&, w, d](pg::Connection& c) {
        Prng rng = UnitRng(seed, LoadTable::kOrders, w, d);
        std::string orders, lines, new_orders;
        AppendOrderRows(rng, w, d, now, &orders, &lines, &new_orders);
        PGRIG_RETURN_IF_ERROR(copy(c, "orders", orders));
        PGRIG_RETURN_IF_ERROR(copy(c, "order_line", lines));
        return copy(c, "new_order", new_orders);
      });
    }
  }
  const auto load_t0 = std::chrono::steady_clock::now();
  if (Status s = RunParallel(params_, o_.jobs, tasks, cancelled); !s.ok()) {
    return drop_on_failure(s);
  }
  report.load_seconds = Since(load_t0);
  report.rows = rows.load();
  report.bytes = bytes.load();
  say(fmt::format("loaded {} warehouses: {} rows in {:.1f} s over {} connections", o_.warehouses,
                  report.rows, report.load_seconds, o_.jobs));

  // Keys, indexes, foreign keys, statistics.
  std::vector<Task> keys;
  for (const TableDef& t : Tables()) {
    std::string sql = PrimaryKeySql(t);
    if (sql.empty()) continue;
    keys.push_back([sql](pg::Connection& c) { return c.Exec(sql).status(); });
  }
  for (const std::string& sql : SecondaryIndexSql()) {
    keys.push_back([sql](pg::Connection& c) { return c.Exec(sql).status(); });
  }
  if (Status s = RunParallel(params_, o_.jobs, keys, cancelled); !s.ok()) {
    return drop_on_failure(s);
  }
  if (o_.foreign_keys) {
    for (const std::string& sql : ForeignKeySql()) {
      if (Status s = main.Exec(sql).status(); !s.ok()) return drop_on_failure(s);
    }
  }
  say(fmt::format("keyed and indexed{}", o_.foreign_keys ? ", with foreign keys" : ""));
  if (o_.procedures) {
    if (Status s = main.Exec(DropProceduresSql()).status(); !s.ok()) return drop_on_failure(s);
    for (const std::string& sql : ProcedureSql()) {
      if (Status s = main.Exec(sql).status(); !s.ok()) return drop_on_failure(s);
    }
    say("created the five transactions' functions (--procedures)");
  }
  std::vector<Task> vacuums;
  for (const TableDef& t : Tables()) {
    std::string sql = fmt::format("VACUUM (ANALYZE) {}", t.name);
    vacuums.push_back([sql](pg::Connection& c) { return c.Exec(sql).status(); });
  }
  if (Status s = RunParallel(params_, o_.jobs, vacuums, cancelled); !s.ok()) {
    return drop_on_failure(s);
  }
  if (Status s =
          main.Exec(fmt::format("INSERT INTO tpcc_load VALUES ({}, {}, {}, {}, {}, '{}', {})",
                                o_.seed, o_.warehouses, report.constants.c_last,
                                report.constants.c_id, report.constants.ol_i_id, report.now,
                                o_.schema.partitions))
              .status();
      !s.ok()) {
    return drop_on_failure(s);
  }
  report.seconds = Since(t0);
  say(fmt::format("vacuumed and analyzed; done in {:.1f} s", report.seconds));
  return report;
}

}  // namespace pgrig::tpcc
