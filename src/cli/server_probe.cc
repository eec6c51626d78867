#include "cli/server_probe.h"

#include <string>

#include "common/fs.h"
#include "common/process.h"
#include "host/facts_json.h"

namespace pgrig::cli {

host::QueryFn QueryOver(pg::Connection* conn) {
  return [conn](std::string_view sql) -> Result<host::SqlRows> {
    auto r = conn->Exec(sql);
    if (!r.ok()) return r.status();
    host::SqlRows rows;
    rows.reserve(static_cast<size_t>(r->rows()));
    for (int i = 0; i < r->rows(); ++i) {
      std::vector<std::optional<std::string>> row;
      for (int c = 0; c < r->cols(); ++c) {
        if (r->IsNull(i, c)) {
          row.emplace_back(std::nullopt);
        } else {
          row.emplace_back(std::string(r->Get(i, c)));
        }
      }
      rows.push_back(std::move(row));
    }
    return rows;
  };
}

host::ServerFacts ProbeServer(pg::Connection& conn, host::HostFacts* host) {
  RealProcessRunner runner;
  const bool local = pg::ServerIsLocal(conn);
  const bool arm = host->cpu.architecture && *host->cpu.architecture == "aarch64";
  host::ServerFacts sf = host::CollectServerFacts(
      QueryOver(&conn),
      {.location = local ? host::ServerLocation::kLocal : host::ServerLocation::kRemote,
       .memory_bytes = host->effective_memory_bytes,
       .host_is_arm = arm,
       .runner = &runner});
  if (local && !host->storage && host->sysroot == "/" && sf.data_directory) {
    host->storage = host::CollectStorageFacts(SysFs("/"), *sf.data_directory, &host->notes);
  }
  return sf;
}

nlohmann::json FactsDocument(pg::Connection& conn) {
  host::HostFacts hf = host::CollectHostFacts(SysFs("/"));
  host::ServerFacts sf = ProbeServer(conn, &hf);
  return host::FactsToJson(hf, sf);
}

}  // namespace pgrig::cli
