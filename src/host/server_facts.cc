#include "host/server_facts.h"

#include <algorithm>
#include <map>

#include "common/fs.h"
#include "common/strings.h"
#include "host/frame_pointers.h"

namespace pgrig::host {

namespace {

std::string Cell(const SqlRows& rows, size_t r, size_t c) {
  if (r >= rows.size() || c >= rows[r].size() || !rows[r][c]) return "";
  return *rows[r][c];
}

std::string InList(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += "'" + n + "'";  // names are our own constants: no quoting needed
  }
  return out;
}

int MajorOf(int version_num) {
  return version_num >= 100000 ? version_num / 10000 : version_num / 100;
}

void CollectBuild(const QueryFn& query, const ServerProbeOptions& opt, ServerFacts* s) {
  BuildFacts& b = s->build;
  if (s->version) b.compiler = CompilerFromVersion(*s->version);
  // The pg_config view answers for the running server, local or not, but
  // only to superusers by default.
  auto view = query(
      "SELECT name, setting FROM pg_config WHERE name IN ('CONFIGURE', 'CFLAGS', 'CC', "
      "'BINDIR')");
  if (view.ok()) {
    for (size_t r = 0; r < view->size(); ++r) {
      std::string n = Cell(*view, r, 0), v = Cell(*view, r, 1);
      if (n == "CONFIGURE") b.configure = v;
      if (n == "CFLAGS") b.cflags = v;
      if (n == "CC") b.cc = v;
      if (n == "BINDIR") b.bindir = v;
    }
    if (b.configure || b.cflags) b.source = "pg_config view";
  } else {
    s->notes.push_back("build: the pg_config view is not readable (" + view.status().message() +
                       "); connect as a superuser to see build flags");
  }
  if (s->local && (!b.configure || !b.cflags) && opt.runner) {
    std::string prog = b.bindir ? *b.bindir + "/pg_config" : "pg_config";
    auto run = [&](const char* flag) -> std::optional<std::string> {
      ProcessOptions po;
      po.argv = {prog, flag};
      po.timeout = std::chrono::milliseconds(10000);
      auto r = RunAndCapture(*opt.runner, po);
      if (!r.ok()) return std::nullopt;
      return std::string(Trim(*r));
    };
    auto version = run("--version");  // "PostgreSQL 15.18 (Debian 15.18-0+deb12u1)"
    bool matches = false;
    if (version && s->version_num) {
      auto words = SplitWords(*version);
      if (words.size() >= 2) {
        auto major = ParseInt64(Split(words[1], '.')[0]);
        matches = major && *major == MajorOf(*s->version_num);
      }
    }
    if (!version) {
      s->notes.push_back("build: could not run " + prog + "; build flags unknown");
    } else if (!matches) {
      s->notes.push_back("build: " + prog + " is \"" + *version +
                         "\", not the server's version; build flags not reported");
    } else {
      if (!b.configure) b.configure = run("--configure");
      if (!b.cflags) b.cflags = run("--cflags");
      if (!b.cc) b.cc = run("--cc");
      if (!b.bindir) b.bindir = run("--bindir");
      b.source = prog;
    }
  }

  auto neither = [&b](const std::string& atomics, const std::string& why) {
    b.arm_atomics = atomics;
    b.arm_atomics_detail = why;
    b.frame_pointers = "unknown";
    b.frame_pointers_detail = why;
  };
  if (!s->local) return neither("not_applicable", "the server binary is not on this machine");
  if (!b.bindir) return neither("unknown", "the server's bindir is unknown");
  b.postgres_binary = *b.bindir + "/postgres";
  const ServerBinaryFacts f = ScanServerBinary(*b.postgres_binary);
  b.frame_pointers = f.frame_pointers;
  b.frame_pointers_detail = f.frame_pointers_detail;
  if (!opt.host_is_arm) {
    b.arm_atomics = "not_applicable";
    b.arm_atomics_detail = "not an Arm machine";
  } else {
    b.arm_atomics = f.arm_atomics;
    b.arm_atomics_detail = f.arm_atomics_detail;
  }
}

}  // namespace

std::optional<std::string> CompilerFromVersion(std::string_view version) {
  constexpr std::string_view kBy = ", compiled by ";
  const size_t at = version.find(kBy);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = version.substr(at + kBy.size());
  // The word size follows the last comma ("..., 64-bit").
  if (const size_t comma = rest.rfind(", ");
      comma != std::string_view::npos && rest.substr(comma + 2).ends_with("-bit")) {
    rest = rest.substr(0, comma);
  }
  rest = Trim(rest);
  if (rest.empty()) return std::nullopt;
  return std::string(rest);
}

ServerBinaryFacts ScanServerBinary(const std::string& path) {
  ServerBinaryFacts f;
  f.path = path;
  auto bytes = ReadWholeFile(path);
  if (!bytes.ok()) {
    f.arm_atomics = "unknown";
    f.arm_atomics_detail = f.frame_pointers_detail = bytes.status().message();
    return f;
  }
  auto atomics = ScanAarch64Atomics(*bytes);
  if (!atomics.ok()) {
    f.arm_atomics =
        atomics.status().code() == StatusCode::kFailedPrecondition ? "not_applicable" : "unknown";
    f.arm_atomics_detail = atomics.status().message();
  } else {
    f.arm_atomics = AtomicsKindName(atomics->kind);
    f.arm_atomics_detail = atomics->detail;
  }
  auto fp = ScanFramePointers(*bytes);
  if (!fp.ok()) {
    f.frame_pointers_detail = path + ": " + fp.status().message();
  } else {
    f.frame_pointers = fp->verdict;
    f.frame_pointers_detail = fp->detail;
  }
  return f;
}

const std::vector<std::string>& OltpSettingNames() {
  static const std::vector<std::string> kNames = {"shared_buffers",
                                                  "huge_pages",
                                                  "huge_pages_status",
                                                  "huge_page_size",
                                                  "max_connections",
                                                  "jit",
                                                  "jit_above_cost",
                                                  "jit_inline_above_cost",
                                                  "jit_optimize_above_cost",
                                                  "synchronous_commit",
                                                  "fsync",
                                                  "full_page_writes",
                                                  "wal_level",
                                                  "wal_buffers",
                                                  "wal_compression",
                                                  "wal_sync_method",
                                                  "commit_delay",
                                                  "checkpoint_timeout",
                                                  "checkpoint_completion_target",
                                                  "max_wal_size",
                                                  "min_wal_size",
                                                  "data_checksums",
                                                  "effective_cache_size",
                                                  "work_mem",
                                                  "maintenance_work_mem",
                                                  "random_page_cost",
                                                  "effective_io_concurrency",
                                                  "max_worker_processes",
                                                  "max_parallel_workers_per_gather",
                                                  "autovacuum",
                                                  "track_io_timing",
                                                  "default_transaction_isolation",
                                                  "shared_preload_libraries",
                                                  "block_size",
                                                  "wal_segment_size",
                                                  "io_method"};
  return kNames;
}

std::optional<uint64_t> SettingBytes(const ServerSetting& s) {
  if (!s.unit) return std::nullopt;
  auto v = ParseInt64(s.setting);
  if (!v || *v < 0) return std::nullopt;
  std::string u = *s.unit;
  size_t i = 0;
  while (i < u.size() && u[i] >= '0' && u[i] <= '9') ++i;
  uint64_t mult = 1;
  if (i > 0) {
    auto m = ParseInt64(std::string_view(u).substr(0, i));
    if (!m || *m <= 0) return std::nullopt;
    mult = static_cast<uint64_t>(*m);
  }
  std::string rest = u.substr(i);
  if (rest == "B") {
  } else if (rest == "kB")
    mult *= 1024;
  else if (rest == "MB")
    mult *= 1024ull * 1024;
  else if (rest == "GB")
    mult *= 1024ull * 1024 * 1024;
  else if (rest == "TB")
    mult *= 1024ull * 1024 * 1024 * 1024;
  else
    return std::nullopt;
  return static_cast<uint64_t>(*v) * mult;
}

ServerFacts CollectServerFacts(const QueryFn& query, const ServerProbeOptions& opt) {
  ServerFacts s;
  s.local = opt.location == ServerLocation::kLocal;

  auto basic = query(
      "SELECT version(), current_setting('server_version_num'), current_database(), "
      "pg_database_size(current_database())");
  if (basic.ok() && !basic->empty()) {
    s.version = Cell(*basic, 0, 0);
    if (auto v = ParseInt64(Cell(*basic, 0, 1))) s.version_num = static_cast<int>(*v);
    s.database = Cell(*basic, 0, 2);
    if (auto v = ParseInt64(Cell(*basic, 0, 3)); v && *v >= 0)
      s.database_size_bytes = static_cast<uint64_t>(*v);
  } else {
    s.notes.push_back("server: version query failed: " +
                      (basic.ok() ? std::string("no rows") : basic.status().message()));
  }

  auto rows = query("SELECT name, setting, unit, source FROM pg_settings WHERE name IN (" +
                    InList(OltpSettingNames()) + ", 'data_directory')");
  if (rows.ok()) {
    std::map<std::string, ServerSetting> by_name;
    for (size_t r = 0; r < rows->size(); ++r) {
      ServerSetting st;
      st.name = Cell(*rows, r, 0);
      st.setting = Cell(*rows, r, 1);
      if (r < rows->size() && (*rows)[r].size() > 2 && (*rows)[r][2]) st.unit = *(*rows)[r][2];
      if (r < rows->size() && (*rows)[r].size() > 3 && (*rows)[r][3]) st.source = *(*rows)[r][3];
      if (st.name == "data_directory") {
        if (!st.setting.empty()) s.data_directory = st.setting;
        continue;
      }
      by_name[st.name] = st;
    }
    for (const auto& n : OltpSettingNames()) {
      auto it = by_name.find(n);
      if (it != by_name.end()) s.settings.push_back(it->second);
    }
    if (auto it = by_name.find("shared_buffers"); it != by_name.end()) {
      s.shared_buffers_bytes = SettingBytes(it->second);
    }
    if (!by_name.count("huge_pages_status") && s.version_num && *s.version_num < 170000) {
      s.notes.push_back(
          "server: huge_pages_status exists from PostgreSQL 17 on; whether huge pages are in use "
          "is unknown");
    }
  } else {
    s.notes.push_back("server: reading pg_settings failed: " + rows.status().message());
  }

  if (s.database_size_bytes && s.shared_buffers_bytes) {
    s.fits_in_shared_buffers = *s.database_size_bytes <= *s.shared_buffers_bytes;
  }
  if (s.database_size_bytes && s.local && opt.memory_bytes) {
    s.fits_in_ram = *s.database_size_bytes <= *opt.memory_bytes;
  } else if (s.database_size_bytes && !s.local) {
    s.notes.push_back("server: remote server; whether the database fits in its RAM is unknown");
  }

  CollectBuild(query, opt, &s);
  return s;
}

}  // namespace pgrig::host
