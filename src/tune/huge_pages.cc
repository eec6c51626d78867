#include "tune/huge_pages.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>

#include "common/fs.h"
#include "common/strings.h"

namespace pgrig::tune {

namespace {

// Settings that change the size of the shared memory segment.
const char* const kShmemSettings[] = {"shared_buffers",
                                      "max_connections",
                                      "max_worker_processes",
                                      "max_wal_senders",
                                      "autovacuum_max_workers",
                                      "max_locks_per_transaction",
                                      "max_prepared_transactions",
                                      "wal_buffers",
                                      "huge_page_size",
                                      "superuser_reserved_connections",
                                      "reserved_connections",
                                      "max_pred_locks_per_transaction"};

std::string LastLine(const std::string& s) {
  auto lines = Split(std::string(Trim(s)), '\n');
  return lines.empty() ? "" : std::string(Trim(lines.back()));
}

}  // namespace

std::vector<std::string> SharedMemoryArgs(const SettingMap& config) {
  std::vector<std::string> args;
  for (const char* name : kShmemSettings) {
    auto it = config.find(name);
    if (it == config.end()) continue;
    args.push_back("-c");
    args.push_back(fmt::format("{}={}", name, it->second.ToConf()));
  }
  return args;
}

Result<HugePagesPlan> ProbeHugePages(const SettingMap& config, int server_major,
                                     uint64_t default_huge_page_size,
                                     const HugePagesProbeOptions& o) {
  if (server_major < 15) {
    return FailedPrecondition(
        fmt::format("PostgreSQL {} cannot report shared_memory_size_in_huge_pages (added in 15)",
                    server_major));
  }
  if (!o.runner) return Internal("ProbeHugePages needs a process runner");
  if (::access((o.bindir + "/postgres").c_str(), X_OK) != 0 ||
      ::access((o.bindir + "/initdb").c_str(), X_OK) != 0) {
    return NotFound(
        fmt::format("no PostgreSQL {} server binaries in '{}'", server_major, o.bindir));
  }
  std::string tmpl = o.scratch_parent + "/pgrig-hugepages-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) {
    return Internal(fmt::format("cannot create a scratch directory under {}", o.scratch_parent));
  }
  std::string dir(buf.data());
  struct Cleanup {
    std::string d;
    ~Cleanup() { (void)RemoveTree(d); }
  } cleanup{dir};
  if (o.run_as && ::chown(dir.c_str(), o.run_as->uid, o.run_as->gid) != 0) {
    return Internal(fmt::format("cannot give {} to the server account", dir));
  }
  auto as_server = [&](std::vector<std::string> argv) {
    ProcessOptions p;
    p.argv = std::move(argv);
    p.run_as = o.run_as;
    p.working_dir = dir;
    p.unset_env = {"PGDATA", "PGHOST", "PGPORT", "PGOPTIONS"};
    p.env["LC_ALL"] = "C";
    p.timeout = std::chrono::seconds(120);
    return p;
  };
  std::string data = dir + "/data";
  PGRIG_ASSIGN_OR_RETURN(
      ProcessResult init,
      o.runner->Run(as_server({o.bindir + "/initdb", "-D", data, "-A", "trust", "-U", "postgres",
                               "--no-sync", "-E", "UTF8", "--locale=C"})));
  if (!init.success()) {
    return Internal("initdb of the scratch data directory failed: " +
                    LastLine(init.err.empty() ? init.out : init.err));
  }
  std::vector<std::string> base = {o.bindir + "/postgres", "-D", data};
  for (auto& a : SharedMemoryArgs(config)) base.push_back(a);
  auto ask = [&](const std::string& what) -> Result<int64_t> {
    std::vector<std::string> argv = base;
    argv.insert(argv.begin() + 1, {"-C", what});
    PGRIG_ASSIGN_OR_RETURN(ProcessResult r, o.runner->Run(as_server(argv)));
    if (!r.success()) {
      return Internal(
          fmt::format("postgres -C {} failed: {}", what, LastLine(r.err.empty() ? r.out : r.err)));
    }
    auto v = ParseInt64(Trim(r.out));
    if (!v) return Internal(fmt::format("postgres -C {} printed '{}'", what, Trim(r.out)));
    return *v;
  };
  PGRIG_ASSIGN_OR_RETURN(int64_t pages, ask("shared_memory_size_in_huge_pages"));
  HugePagesPlan h;
  h.exact = true;
  h.pages = pages;
  uint64_t size = default_huge_page_size;
  if (auto it = config.find("huge_page_size"); it != config.end() && it->second.integer > 0) {
    size = static_cast<uint64_t>(it->second.integer);
  }
  h.page_size_bytes = size;
  h.method = fmt::format(
      "postgres {} -C shared_memory_size_in_huge_pages on a scratch data "
      "directory with the candidate settings",
      server_major);
  if (pages < 0) {
    h.notes.push_back("the server reports that huge pages are not supported on this platform");
  }
  h.sysctl = HugePagesSysctl(std::max<int64_t>(pages, 0), size, default_huge_page_size);
  return h;
}

}  // namespace pgrig::tune
