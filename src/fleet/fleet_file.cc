#include "fleet/fleet_file.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>
#include <span>
#include <tuple>

#include "common/fs.h"
#include "common/strings.h"
#include "fleet/client_mode.h"
#include "plan/plan_search.h"
#include "plan/toml_text.h"

namespace pgrig::fleet {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kFleetKeys[] = {"plan",     "mode",      "ssh_config", "connect_timeout",
                                           "parallel", "results",   "server",     "bench",
                                           "tpcc",     "provision", "teardown",   "keep_cluster"};
constexpr std::string_view kHostKeys[] = {
    "label",       "ssh",      "role", "instance",  "usd_per_hour", "pgrig",
    "install_dir", "work_dir", "env",  "provision", "teardown",     "keep_cluster"};
constexpr std::string_view kHookKeys[] = {"command", "timeout"};
constexpr std::string_view kTopKeys[] = {"fleet", "host"};

int LineOf(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

bool IsLabel(std::string_view s) {
  if (s.empty() || s.size() > 40) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return false;
    }
  }
  return s.front() != '.' && s.front() != '-';
}

class Reader {
 public:
  Reader(std::string file, fs::path dir) : file_(std::move(file)), dir_(std::move(dir)) {}

  Status Error(int line, const std::string& message) const {
    return InvalidArgument(fmt::format("{}:{}: {}", file_, line, message));
  }

  Status CheckKeys(const toml::table& t, std::span<const std::string_view> known,
                   const std::string& where) const {
    for (auto&& [key, node] : t) {
      const std::string_view k = key.str();
      if (std::find(known.begin(), known.end(), k) != known.end()) continue;
      std::vector<std::string> names(known.begin(), known.end());
      std::vector<std::string> close = ClosestNames(k, names, 1);
      std::string msg = fmt::format("unknown key '{}' in {}", k, where);
      if (!close.empty()) {
        msg += fmt::format("; did you mean '{}'?", close[0]);
      } else {
        msg += fmt::format(" (known keys: {})", Join(names, ", "));
      }
      int line =
          key.source().begin.line > 0 ? static_cast<int>(key.source().begin.line) : LineOf(node);
      return Error(line, msg);
    }
    return Status::Ok();
  }

  Result<std::optional<std::string>> String(const toml::table& t, std::string_view key,
                                            const std::string& where) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::optional<std::string>();
    if (!n->is_string())
      return Error(LineOf(*n), fmt::format("'{}' in {} must be a string", key, where));
    std::string v = n->as_string()->get();
    if (Trim(v).empty()) return Error(LineOf(*n), fmt::format("'{}' in {} is empty", key, where));
    return std::optional<std::string>(v);
  }

  Result<std::optional<int64_t>> Seconds(const toml::table& t, std::string_view key,
                                         const std::string& where) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::optional<int64_t>();
    if (!n->is_integer()) {
      return Error(LineOf(*n),
                   fmt::format("'{}' in {} must be a whole number of seconds", key, where));
    }
    int64_t v = n->as_integer()->get();
    if (v < 1 || v > 86400) {
      return Error(LineOf(*n), fmt::format("'{}' in {} must be from 1 to 86400 seconds, got {}",
                                           key, where, v));
    }
    return std::optional<int64_t>(v);
  }

  Result<std::optional<bool>> Bool(const toml::table& t, std::string_view key,
                                   const std::string& where) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::optional<bool>();
    if (!n->is_boolean()) {
      return Error(LineOf(*n), fmt::format("'{}' in {} must be true or false", key, where));
    }
    return std::optional<bool>(n->as_boolean()->get());
  }

  std::string Resolve(const std::string& p) const {
    fs::path path(p);
    return path.is_absolute() ? p : (dir_ / path).lexically_normal().string();
  }

  Result<std::optional<Hook>> ReadHook(const toml::table& t, std::string_view key,
                                       const std::string& where) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::optional<Hook>();
    std::string hw = fmt::format("'{}' in {}", key, where);
    const toml::table* ht = n->as_table();
    if (ht == nullptr) {
      return Error(LineOf(*n), hw + " must be a table: { command = [...], timeout = SECONDS }");
    }
    PGRIG_RETURN_IF_ERROR(CheckKeys(*ht, kHookKeys, hw));
    Hook hook;
    hook.line = LineOf(*n);
    const toml::node* c = ht->get("command");
    if (c == nullptr) return Error(hook.line, hw + " has no 'command'");
    if (c->is_string()) {
      std::string s = c->as_string()->get();
      if (Trim(s).empty()) return Error(LineOf(*c), hw + ": 'command' is empty");
      hook.argv = {"sh", "-c", s};
    } else if (const toml::array* arr = c->as_array()) {
      for (const toml::node& el : *arr) {
        if (!el.is_string()) return Error(LineOf(el), hw + ": 'command' words must be strings");
        hook.argv.push_back(el.as_string()->get());
      }
      if (hook.argv.empty() || hook.argv[0].empty()) {
        return Error(LineOf(*c), hw + ": 'command' is empty");
      }
    } else {
      return Error(LineOf(*c), hw + ": 'command' must be a string or an array of strings");
    }
    PGRIG_ASSIGN_OR_RETURN(auto timeout, Seconds(*ht, "timeout", hw));
    if (timeout) hook.timeout = std::chrono::seconds(*timeout);
    return std::optional<Hook>(hook);
  }

 private:
  std::string file_;
  fs::path dir_;
};

// What a [[host]] takes from [fleet] when it does not say.
struct HostDefaults {
  bool keep_cluster = false;
};

Status ReadHost(const Reader& r, const toml::table& t, int index, const HostDefaults& defaults,
                FleetHost* h) {
  std::string where = fmt::format("[[host]] #{}", index + 1);
  h->line = LineOf(t);
  PGRIG_RETURN_IF_ERROR(r.CheckKeys(t, kHostKeys, where));
  PGRIG_ASSIGN_OR_RETURN(auto dest, r.String(t, "ssh", where));
  if (!dest) return r.Error(h->line, where + " has no 'ssh' (the host's ssh destination)");
  if (dest->front() == '-' || dest->find_first_of(" \t\n'\"`$;") != std::string::npos) {
    return r.Error(LineOf(*t.get("ssh")),
                   fmt::format("'ssh' in {}: \"{}\" is not an ssh destination ([user@]host or a "
                               "Host alias from your ssh configuration)",
                               where, *dest));
  }
  h->destination = *dest;
  PGRIG_ASSIGN_OR_RETURN(auto label, r.String(t, "label", where));
  h->label = label.value_or(*dest);
  if (label && !IsLabel(*label)) {
    return r.Error(LineOf(*t.get("label")),
                   fmt::format("'label' in {}: \"{}\" must be letters, digits, '-', '_' or '.' "
                               "(it names a results directory), at most 40",
                               where, *label));
  }
  if (!label && !IsLabel(h->label)) {
    return r.Error(h->line, fmt::format("{} needs a 'label' (\"{}\" cannot name a results "
                                        "directory)",
                                        where, h->label));
  }
  where = fmt::format("[[host]] '{}'", h->label);
  PGRIG_ASSIGN_OR_RETURN(auto role, r.String(t, "role", where));
  if (role) {
    if (*role == "sut") {
      h->role = HostRole::kSut;
    } else if (*role == "client") {
      h->role = HostRole::kClient;
    } else {
      std::vector<std::string> close = ClosestNames(*role, {"sut", "client"}, 1);
      return r.Error(
          LineOf(*t.get("role")),
          fmt::format("'role' in {}: unknown role \"{}\"; use \"sut\" (a machine under "
                      "test) or \"client\" (a load generator){}",
                      where, *role, close.empty() ? "" : "; did you mean \"" + close[0] + "\"?"));
    }
  }
  PGRIG_ASSIGN_OR_RETURN(h->instance, r.String(t, "instance", where));
  if (const toml::node* p = t.get("usd_per_hour")) {
    if (!p->is_number()) {
      return r.Error(LineOf(*p), fmt::format("'usd_per_hour' in {} must be a number", where));
    }
    double v = p->is_integer() ? static_cast<double>(p->as_integer()->get())
                               : p->as_floating_point()->get();
    if (!(v > 0) || !std::isfinite(v)) {
      return r.Error(LineOf(*p),
                     fmt::format("'usd_per_hour' in {} must be above 0, got {}", where, v));
    }
    if (h->instance) {
      return r.Error(LineOf(*p),
                     fmt::format("{} has both 'instance' and 'usd_per_hour'; give one", where));
    }
    h->usd_per_hour = v;
  }
  if (h->role == HostRole::kClient && (h->instance || h->usd_per_hour)) {
    // Accepting it would let a price sit in the file that no result carries.
    const char* key = h->instance ? "instance" : "usd_per_hour";
    return r.Error(LineOf(*t.get(key)),
                   fmt::format("'{}' in {}: a client host is a load generator and is not priced "
                               "(only role = \"sut\" hosts are); remove it. A clients-mode "
                               "result is priced when compared: pgrig compare ... "
                               "--usd-per-hour <the server's price per hour>",
                               key, where));
  }
  PGRIG_ASSIGN_OR_RETURN(auto pgrig, r.String(t, "pgrig", where));
  if (pgrig) h->pgrig = *pgrig;
  PGRIG_ASSIGN_OR_RETURN(auto install_dir, r.String(t, "install_dir", where));
  if (install_dir) h->install_dir = *install_dir;
  PGRIG_ASSIGN_OR_RETURN(auto work_dir, r.String(t, "work_dir", where));
  if (work_dir) h->work_dir = *work_dir;
  if (const toml::node* e = t.get("env")) {
    const toml::table* et = e->as_table();
    if (et == nullptr) {
      return r.Error(LineOf(*e), fmt::format("'env' in {} must be a table of strings", where));
    }
    for (auto&& [k, v] : *et) {
      std::string name(k.str());
      bool valid = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
      for (char ch : name) {
        valid = valid && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_');
      }
      if (!valid || !v.is_string()) {
        return r.Error(LineOf(v), fmt::format("'env' in {}: '{}' must be a variable name with a "
                                              "string value",
                                              where, name));
      }
      h->env[name] = v.as_string()->get();
    }
  }
  PGRIG_ASSIGN_OR_RETURN(auto keep, r.Bool(t, "keep_cluster", where));
  if (keep && h->role == HostRole::kClient) {
    return r.Error(LineOf(*t.get("keep_cluster")),
                   fmt::format("'keep_cluster' in {}: a client host runs pgrig bench against the "
                               "fleet's server and starts no embedded cluster; remove it",
                               where));
  }
  h->keep_cluster = keep.value_or(defaults.keep_cluster);
  PGRIG_ASSIGN_OR_RETURN(h->provision, r.ReadHook(t, "provision", where));
  PGRIG_ASSIGN_OR_RETURN(h->teardown, r.ReadHook(t, "teardown", where));
  return Status::Ok();
}

}  // namespace

const char* HostRoleName(HostRole r) { return r == HostRole::kSut ? "sut" : "client"; }
const char* FleetModeName(FleetMode m) { return m == FleetMode::kCompare ? "compare" : "clients"; }

std::vector<const FleetHost*> Fleet::HostsWithRole(HostRole role) const {
  std::vector<const FleetHost*> out;
  for (const FleetHost& h : hosts) {
    if (h.role == role) out.push_back(&h);
  }
  return out;
}

Result<Fleet> ParseFleet(const std::string& text, const std::string& path) {
  PGRIG_ASSIGN_OR_RETURN(toml::table root, plan::ParseTomlText(text, path));
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  Reader r(path, dir);
  PGRIG_RETURN_IF_ERROR(r.CheckKeys(root, kTopKeys, "the fleet file"));
  Fleet fleet;
  fleet.file = path;
  const toml::node* fn = root.get("fleet");
  if (fn == nullptr || !fn->is_table()) {
    return r.Error(fn ? LineOf(*fn) : 1, "the fleet file needs a [fleet] table with 'plan'");
  }
  const toml::table& f = *fn->as_table();
  const std::string where = "[fleet]";
  PGRIG_RETURN_IF_ERROR(r.CheckKeys(f, kFleetKeys, where));
  PGRIG_ASSIGN_OR_RETURN(auto plan, r.String(f, "plan", where));
  if (plan) fleet.plan = plan::LooksLikePlanFile(*plan) ? r.Resolve(*plan) : *plan;
  // 'bench' and 'tpcc': the arguments every client runs, as strings.
  for (auto [key, example, into] :
       {std::tuple{"bench", "[\"-S\", \"-c\", \"8\", \"-T\", \"30\"]", &fleet.bench},
        std::tuple{"tpcc", "[\"-c\", \"8\", \"-T\", \"60\", \"--warmup\", \"10\"]", &fleet.tpcc}}) {
    const toml::node* b = f.get(key);
    if (b == nullptr) continue;
    const toml::array* arr = b->as_array();
    if (arr == nullptr || arr->empty()) {
      return r.Error(LineOf(*b),
                     fmt::format("'{}' in [fleet] must be a non-empty array of pgrig "
                                 "{} arguments, e.g. {}",
                                 key, key == std::string_view("tpcc") ? "tpcc run" : key, example));
    }
    std::vector<std::string> words;
    for (const toml::node& el : *arr) {
      if (!el.is_string()) {
        return r.Error(LineOf(el), fmt::format("'{}' in [fleet]: arguments must be strings", key));
      }
      words.push_back(el.as_string()->get());
    }
    *into = std::move(words);
  }
  PGRIG_ASSIGN_OR_RETURN(auto mode, r.String(f, "mode", where));
  if (mode) {
    if (*mode == "compare") {
      fleet.mode = FleetMode::kCompare;
    } else if (*mode == "clients") {
      fleet.mode = FleetMode::kClients;
    } else {
      return r.Error(LineOf(*f.get("mode")),
                     fmt::format("'mode' in [fleet]: unknown mode \"{}\"; use \"compare\" or "
                                 "\"clients\"",
                                 *mode));
    }
  }
  PGRIG_ASSIGN_OR_RETURN(auto ssh_config, r.String(f, "ssh_config", where));
  if (ssh_config) fleet.ssh_config = r.Resolve(*ssh_config);
  PGRIG_ASSIGN_OR_RETURN(auto ct, r.Seconds(f, "connect_timeout", where));
  if (ct) fleet.connect_timeout = std::chrono::seconds(*ct);
  if (const toml::node* p = f.get("parallel")) {
    if (!p->is_boolean()) return r.Error(LineOf(*p), "'parallel' in [fleet] must be true or false");
    fleet.parallel = p->as_boolean()->get();
  }
  PGRIG_ASSIGN_OR_RETURN(auto results, r.String(f, "results", where));
  fleet.results_dir = r.Resolve(results.value_or("fleet-results"));
  PGRIG_ASSIGN_OR_RETURN(fleet.server, r.String(f, "server", where));
  PGRIG_ASSIGN_OR_RETURN(fleet.provision, r.ReadHook(f, "provision", where));
  PGRIG_ASSIGN_OR_RETURN(fleet.teardown, r.ReadHook(f, "teardown", where));
  PGRIG_ASSIGN_OR_RETURN(auto keep_cluster, r.Bool(f, "keep_cluster", where));
  const HostDefaults defaults{.keep_cluster = keep_cluster.value_or(false)};

  const toml::node* hn = root.get("host");
  const toml::array* hosts = hn ? hn->as_array() : nullptr;
  if (hn != nullptr && (hosts == nullptr || !hosts->is_array_of_tables())) {
    return r.Error(LineOf(*hn), "'host' must be [[host]] tables");
  }
  if (hosts == nullptr || hosts->empty()) {
    return r.Error(LineOf(f), "the fleet file has no [[host]] tables; add one per machine");
  }
  std::set<std::string> labels;
  for (size_t i = 0; i < hosts->size(); ++i) {
    FleetHost h;
    PGRIG_RETURN_IF_ERROR(
        ReadHost(r, *hosts->get(i)->as_table(), static_cast<int>(i), defaults, &h));
    if (!labels.insert(h.label).second) {
      return r.Error(h.line, fmt::format("[[host]] '{}': the label is used by another host; labels "
                                         "name results directories and must differ",
                                         h.label));
    }
    fleet.hosts.push_back(std::move(h));
  }
  // Without 'mode', the roles decide: only client hosts make clients mode.
  if (!mode && fleet.HostsWithRole(HostRole::kSut).empty()) fleet.mode = FleetMode::kClients;
  if (fleet.mode == FleetMode::kCompare) {
    if (fleet.plan.empty()) {
      return r.Error(LineOf(f), "[fleet] has no 'plan' (a shipped plan name or a plan file)");
    }
    for (const char* key : {"bench", "tpcc"}) {
      if (const toml::node* b = f.get(key)) {
        return r.Error(LineOf(*b), fmt::format("'{}' in [fleet] is for clients mode (every "
                                               "[[host]] role = \"client\"); compare mode runs "
                                               "the 'plan'",
                                               key));
      }
    }
    if (fleet.HostsWithRole(HostRole::kSut).empty()) {
      return r.Error(LineOf(f), "mode \"compare\" needs at least one [[host]] with role = \"sut\"");
    }
  } else {
    if (keep_cluster) {
      return r.Error(LineOf(*f.get("keep_cluster")),
                     "'keep_cluster' in [fleet] is for compare mode (the embedded cluster a sut "
                     "host's run starts); a clients-mode run starts no cluster on its hosts; "
                     "remove it");
    }
    if (fleet.HostsWithRole(HostRole::kClient).empty()) {
      return r.Error(LineOf(f),
                     "mode \"clients\" needs at least one [[host]] with role = \"client\"");
    }
    if (!fleet.server) {
      return r.Error(LineOf(f),
                     "mode \"clients\" needs 'server' in [fleet]: the conninfo every "
                     "client drives");
    }
    if (fleet.bench && fleet.tpcc) {
      return r.Error(LineOf(*f.get("tpcc")),
                     "[fleet] has both 'bench' and 'tpcc'; every client runs one of them");
    }
    if (!fleet.bench && !fleet.tpcc) {
      return r.Error(LineOf(f),
                     "mode \"clients\" needs 'bench' in [fleet] (the pgrig bench arguments "
                     "every client runs, with -T SECONDS) or 'tpcc' (pgrig tpcc run's)");
    }
    if (fleet.bench) {
      if (auto b = CheckClientBench(*fleet.bench); !b.ok()) {
        return r.Error(LineOf(*f.get("bench")), "'bench' in [fleet]: " + b.status().message());
      }
    } else if (auto t = CheckClientTpcc(*fleet.tpcc); !t.ok()) {
      return r.Error(LineOf(*f.get("tpcc")), "'tpcc' in [fleet]: " + t.status().message());
    }
  }
  return fleet;
}

Result<Fleet> ReadFleetFile(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text.ok()) {
    return NotFound(fmt::format("fleet file {}: {}", path, text.status().message()));
  }
  return ParseFleet(*text, path);
}

}  // namespace pgrig::fleet
