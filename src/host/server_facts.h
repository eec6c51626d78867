// Server facts: what the PostgreSQL server is and how it is configured.
//
// CollectServerFacts() asks the server through a QueryFn (so it can be
// tested with a scripted fake and used with any connection), and, when the
// server runs on this machine, runs pg_config and scans the postgres binary
// for Arm LSE atomics.  Like host facts it never fails as a whole: what it
// cannot learn is left empty with a note.  Values are plain structs; the
// collector is single-threaded and only reads (SELECTs, files, pg_config).
#ifndef PGRIG_HOST_SERVER_FACTS_H_
#define PGRIG_HOST_SERVER_FACTS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/process.h"
#include "common/status.h"
#include "host/arm_atomics.h"

namespace pgrig::host {

// Rows of text values; a NULL is std::nullopt.
using SqlRows = std::vector<std::vector<std::optional<std::string>>>;
// Runs one SQL statement and returns its rows.
using QueryFn = std::function<Result<SqlRows>(std::string_view sql)>;

struct ServerSetting {
  std::string name;
  std::string setting;              // as pg_settings shows it, in `unit`
  std::optional<std::string> unit;  // "8kB", "ms", ...
  std::optional<std::string> source;
};

// The settings that matter to OLTP results, in the order facts report them.
const std::vector<std::string>& OltpSettingNames();

struct BuildFacts {
  std::optional<std::string> configure;  // pg_config --configure
  std::optional<std::string> cflags;     // pg_config --cflags
  std::optional<std::string> cc;         // pg_config --cc: the compiler command ("gcc")
  // The compiler and its version, as the server states it in version()
  // ("compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit": configure
  // records `$CC --version`'s first line); local or remote.
  std::optional<std::string> compiler;
  std::optional<std::string> bindir;
  std::optional<std::string> source;  // "pg_config view" or the pg_config program run
  std::optional<std::string> postgres_binary;
  // "lse", "outline_atomics", "ll_sc_only", "unknown" or "not_applicable".
  std::string arm_atomics = "not_applicable";
  std::optional<std::string> arm_atomics_detail;
  // "yes", "no", "partly" or "unknown" (host/frame_pointers.h).
  std::string frame_pointers = "unknown";
  std::optional<std::string> frame_pointers_detail;
};

// What a server binary's machine code says, read from the file itself:
// its atomics (AArch64 binaries; "not_applicable" for others) and whether
// it keeps frame pointers, which decides how good perf's stacks of it are.
// Never fails: what cannot be read is "unknown" with the reason.
struct ServerBinaryFacts {
  std::string path;
  std::string arm_atomics = "not_applicable";
  std::optional<std::string> arm_atomics_detail;
  std::string frame_pointers = "unknown";
  std::optional<std::string> frame_pointers_detail;
};
ServerBinaryFacts ScanServerBinary(const std::string& path);

struct ServerFacts {
  std::optional<std::string> version;  // SELECT version()
  std::optional<int> version_num;      // server_version_num
  std::optional<std::string> database;
  std::optional<uint64_t> database_size_bytes;
  std::optional<std::string> data_directory;
  std::vector<ServerSetting> settings;  // those of OltpSettingNames() the server has
  std::optional<uint64_t> shared_buffers_bytes;
  std::optional<bool> fits_in_shared_buffers;
  std::optional<bool> fits_in_ram;
  bool local = false;
  BuildFacts build;
  std::vector<std::string> notes;
};

enum class ServerLocation { kRemote, kLocal };

struct ServerProbeOptions {
  ServerLocation location = ServerLocation::kRemote;
  // This machine's memory after container limits (HostFacts::effective_memory_bytes),
  // for "fits in RAM"; only used when the server is local.
  std::optional<uint64_t> memory_bytes;
  bool host_is_arm = false;
  // For pg_config; null: build facts come only from the pg_config view.
  const ProcessRunner* runner = nullptr;
};

ServerFacts CollectServerFacts(const QueryFn& query, const ServerProbeOptions& options);

// The compiler named in a version() string ("PostgreSQL 15.18 (Debian
// 15.18-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc (Debian
// 12.2.0-14) 12.2.0, 64-bit" -> "gcc (Debian 12.2.0-14) 12.2.0"); nullopt
// when it names none.
std::optional<std::string> CompilerFromVersion(std::string_view version);

// A pg_settings value in bytes ("16384" with unit "8kB" -> 134217728);
// nullopt when the unit is not a size.
std::optional<uint64_t> SettingBytes(const ServerSetting& s);

}  // namespace pgrig::host

#endif  // PGRIG_HOST_SERVER_FACTS_H_
