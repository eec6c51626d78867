// "server_profile" (results/profile_json.h).
#include "results/profile_json.h"

#include <fmt/format.h>

#include <cmath>

#include "common/fs.h"
#include "host/facts_json.h"

namespace pgrig::results {

using Json = nlohmann::json;
using profile::Category;
using profile::CategoryKey;
using profile::FunctionShare;
using profile::kAllCategories;
using profile::Profile;
namespace {

double ProfileRound3(double v) { return std::round(v * 1000.0) / 1000.0; }

bool ProfileCategoryFromKey(std::string_view key, Category& out) {
  for (Category c : kAllCategories) {
    if (CategoryKey(c) == key) {
      out = c;
      return true;
    }
  }
  return false;
}

Status ProfileBad(const std::string& where, const std::string& key, const std::string& what) {
  return InvalidArgument(where + ": server_profile." + key + ": " + what);
}

Status ProfileInt(const nlohmann::json& j, const char* key, const std::string& where,
                  int64_t& out) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer() || it->get<int64_t>() < 0) {
    return ProfileBad(where, key, "must be a non-negative integer");
  }
  out = it->get<int64_t>();
  return Status();
}

Json OptRound3(const std::optional<double>& v) {
  return v ? Json(ProfileRound3(*v)) : Json(nullptr);
}

Result<profile::CounterValues> HardwareCountersFromJson(const Json& j, const std::string& where) {
  const std::string key = "hardware_counters";
  if (!j.is_object()) return ProfileBad(where, key, "must be an object or null");
  profile::CounterValues v;
  if (auto k = j.find("kernel"); k != j.end() && k->is_boolean()) v.kernel = k->get<bool>();
  int64_t processes = 0;
  PGRIG_RETURN_IF_ERROR(ProfileInt(j, "processes", where + ": " + key, processes));
  v.processes = static_cast<int>(std::min<int64_t>(processes, INT32_MAX));
  auto ev = j.find("events");
  if (ev == j.end() || !ev->is_array())
    return ProfileBad(where, key + ".events", "must be an array");
  for (size_t i = 0; i < ev->size(); ++i) {
    const Json& e = (*ev)[i];
    const std::string at = key + ".events[" + std::to_string(i) + "]";
    if (!e.is_object() || !e.contains("event") || !e["event"].is_string()) {
      return ProfileBad(where, at, "needs an event name");
    }
    profile::CounterReading r{.event = e["event"].get<std::string>()};
    if (auto c = e.find("count"); c != e.end() && !c->is_null()) {
      if (!c->is_number() || c->get<double>() < 0) {
        return ProfileBad(where, at + ".count", "must be a non-negative number or null");
      }
      r.count = c->get<double>();
    }
    if (auto p = e.find("running_pct"); p != e.end() && p->is_number()) {
      r.running_pct = p->get<double>();
    }
    v.readings.push_back(std::move(r));
  }
  return v;
}

}  // namespace

// "hardware_counters": the events as counted, and the ratios a reader
// wants (IPC, cache and branch misses), null where a count is missing.
Json HardwareCountersToJson(const profile::CounterValues& v) {
  Json events = Json::array();
  for (const profile::CounterReading& r : v.readings) {
    events.push_back({{"event", r.event},
                      {"count", r.count ? Json(std::llround(*r.count)) : Json(nullptr)},
                      {"running_pct", ProfileRound3(r.running_pct)}});
  }
  return {{"kernel", v.kernel},
          {"processes", v.processes},
          {"ipc", OptRound3(v.Ipc())},
          {"cache_miss_pct", OptRound3(v.CacheMissPct())},
          {"branch_miss_pct", OptRound3(v.BranchMissPct())},
          {"events", std::move(events)}};
}

ServerProfileDoc KeepServerProfile(const profile::ProfileMeasure& m, const std::string& folded_path,
                                   const std::string& folded_name, std::string* write_error) {
  ServerProfileDoc d{.profile = m.profile, .unavailable = m.unavailable};
  d.server_binary = m.server_binary;
  d.hardware_counters = m.hardware_counters;
  d.hardware_counters_unavailable = m.hardware_counters_unavailable;
  if (m.profile) {
    const Status w = WriteFileAtomically(folded_path, m.profile->FoldedText());
    if (w.ok()) {
      d.folded_stacks_file = folded_name;
    } else if (write_error != nullptr) {
      *write_error = "could not write the folded stacks to \"" + folded_path + "\": " + w.message();
    }
  }
  return d;
}

nlohmann::json ProfileCategoriesJson(const Profile& p) {
  nlohmann::json cats = nlohmann::json::array();
  for (Category c : kAllCategories) {
    const int64_t n = p.category_samples[static_cast<size_t>(c)];
    cats.push_back(
        {{"category", CategoryKey(c)}, {"samples", n}, {"pct", ProfileRound3(p.Pct(n))}});
  }
  return cats;
}

nlohmann::json ProfileTopFunctionsJson(const Profile& p, size_t max) {
  nlohmann::json top = nlohmann::json::array();
  for (size_t i = 0; i < p.top_functions.size() && i < max; ++i) {
    const FunctionShare& f = p.top_functions[i];
    top.push_back({{"function", f.function},
                   {"object", f.object},
                   {"category", CategoryKey(f.category)},
                   {"self_samples", f.self_samples},
                   {"total_samples", f.total_samples},
                   {"self_pct", ProfileRound3(p.Pct(f.self_samples))},
                   {"total_pct", ProfileRound3(p.Pct(f.total_samples))}});
  }
  return top;
}

nlohmann::json ServerProfileToJson(const ServerProfileDoc& d) {
  if (!d.profile) return {{"unavailable", d.unavailable}};  // the binary goes with a profile only
  const Profile& p = *d.profile;
  nlohmann::json j;
  j["tool"] = "perf";
  j["event"] = p.event;
  j["frequency_hz"] = p.frequency_hz;
  j["call_graph"] = p.call_graph;
  j["window_s"] = ProfileRound3(p.window_s);
  j["samples"] = p.samples;
  j["samples_outside_window"] = p.samples_outside_window;
  j["samples_other_processes"] = p.samples_other_processes;
  j["unreadable_records"] = p.unreadable_records;
  j["sampled_cpu_s"] = ProfileRound3(p.SampledCpuSeconds());
  j["measured_server_cpu_s"] = d.measured_server_cpu_s
                                   ? nlohmann::json(ProfileRound3(*d.measured_server_cpu_s))
                                   : nlohmann::json(nullptr);
  j["processes"] = p.processes;
  j["unresolved"] = {{"leaf_samples", p.unresolved_leaf_samples},
                     {"leaf_pct", ProfileRound3(p.Pct(p.unresolved_leaf_samples))},
                     {"frames", p.unresolved_frames},
                     {"frames_total", p.frames}};
  j["categories"] = ProfileCategoriesJson(p);
  j["top_functions"] = ProfileTopFunctionsJson(p);
  j["folded_stacks_file"] =
      d.folded_stacks_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.folded_stacks_file);
  j["hardware_counters"] =
      d.hardware_counters ? HardwareCountersToJson(*d.hardware_counters) : nlohmann::json(nullptr);
  j["hardware_counters_unavailable"] = d.hardware_counters
                                           ? nlohmann::json(nullptr)
                                           : nlohmann::json(d.hardware_counters_unavailable);
  j["server_binary"] = d.server_binary ? host::ToJson(*d.server_binary) : nlohmann::json(nullptr);
  return j;
}

Result<ServerProfileDoc> ServerProfileFromJson(const nlohmann::json& j, const std::string& where) {
  ServerProfileDoc d;
  if (!j.is_object()) return InvalidArgument(where + ": server_profile must be an object");
  if (auto u = j.find("unavailable"); u != j.end()) {
    if (!u->is_string()) return ProfileBad(where, "unavailable", "must be a string");
    d.unavailable = u->get<std::string>();
    return d;
  }
  Profile p;
  int64_t hz = 0;
  int64_t processes = 0;
  PGRIG_RETURN_IF_ERROR(ProfileInt(j, "frequency_hz", where, hz));
  PGRIG_RETURN_IF_ERROR(ProfileInt(j, "samples", where, p.samples));
  PGRIG_RETURN_IF_ERROR(ProfileInt(j, "samples_outside_window", where, p.samples_outside_window));
  PGRIG_RETURN_IF_ERROR(ProfileInt(j, "processes", where, processes));
  if (j.contains("samples_other_processes")) {
    PGRIG_RETURN_IF_ERROR(
        ProfileInt(j, "samples_other_processes", where, p.samples_other_processes));
  }
  if (j.contains("unreadable_records")) {
    PGRIG_RETURN_IF_ERROR(ProfileInt(j, "unreadable_records", where, p.unreadable_records));
  }
  if (hz > 100000) return ProfileBad(where, "frequency_hz", "is out of range");
  p.frequency_hz = static_cast<int>(hz);
  p.processes = static_cast<int>(std::min<int64_t>(processes, INT32_MAX));
  if (auto w = j.find("window_s"); w != j.end() && w->is_number() && w->get<double>() >= 0) {
    p.window_s = w->get<double>();
  } else {
    return ProfileBad(where, "window_s", "must be a non-negative number");
  }
  if (auto e = j.find("event"); e != j.end() && e->is_string()) p.event = e->get<std::string>();
  if (auto g = j.find("call_graph"); g != j.end() && g->is_string()) {
    p.call_graph = g->get<std::string>();
  }
  auto un = j.find("unresolved");
  if (un == j.end() || !un->is_object())
    return ProfileBad(where, "unresolved", "must be an object");
  PGRIG_RETURN_IF_ERROR(
      ProfileInt(*un, "leaf_samples", where + ": unresolved", p.unresolved_leaf_samples));
  PGRIG_RETURN_IF_ERROR(ProfileInt(*un, "frames", where + ": unresolved", p.unresolved_frames));
  PGRIG_RETURN_IF_ERROR(ProfileInt(*un, "frames_total", where + ": unresolved", p.frames));
  auto cats = j.find("categories");
  if (cats == j.end() || !cats->is_array())
    return ProfileBad(where, "categories", "must be an array");
  int64_t sum = 0;
  for (size_t i = 0; i < cats->size(); ++i) {
    const nlohmann::json& c = (*cats)[i];
    const std::string at = "categories[" + std::to_string(i) + "]";
    Category cat;
    if (!c.is_object() || !c.contains("category") || !c["category"].is_string() ||
        !ProfileCategoryFromKey(c["category"].get<std::string>(), cat)) {
      return ProfileBad(where, at, "must name a known category");
    }
    int64_t n = 0;
    PGRIG_RETURN_IF_ERROR(ProfileInt(c, "samples", where + ": " + at, n));
    p.category_samples[static_cast<size_t>(cat)] = n;
    sum += n;
  }
  if (sum != p.samples) {
    return ProfileBad(where, "categories",
                      fmt::format("its samples sum to {}, not to samples ({})", sum, p.samples));
  }
  auto top = j.find("top_functions");
  if (top == j.end() || !top->is_array())
    return ProfileBad(where, "top_functions", "must be an array");
  for (size_t i = 0; i < top->size(); ++i) {
    const nlohmann::json& t = (*top)[i];
    const std::string at = "top_functions[" + std::to_string(i) + "]";
    FunctionShare f;
    if (!t.is_object() || !t.contains("function") || !t["function"].is_string() ||
        !t.contains("object") || !t["object"].is_string()) {
      return ProfileBad(where, at, "needs a function and an object");
    }
    f.function = t["function"].get<std::string>();
    f.object = t["object"].get<std::string>();
    if (t.contains("category") && t["category"].is_string()) {
      ProfileCategoryFromKey(t["category"].get<std::string>(), f.category);
    }
    PGRIG_RETURN_IF_ERROR(ProfileInt(t, "self_samples", where + ": " + at, f.self_samples));
    PGRIG_RETURN_IF_ERROR(ProfileInt(t, "total_samples", where + ": " + at, f.total_samples));
    p.top_functions.push_back(std::move(f));
  }
  if (auto m = j.find("measured_server_cpu_s"); m != j.end() && m->is_number()) {
    d.measured_server_cpu_s = m->get<double>();
  }
  if (auto fs = j.find("folded_stacks_file"); fs != j.end() && fs->is_string()) {
    d.folded_stacks_file = fs->get<std::string>();
  }
  if (auto hw = j.find("hardware_counters_unavailable"); hw != j.end() && hw->is_string()) {
    d.hardware_counters_unavailable = hw->get<std::string>();
  }
  if (auto hw = j.find("hardware_counters"); hw != j.end() && !hw->is_null()) {
    PGRIG_ASSIGN_OR_RETURN(d.hardware_counters, HardwareCountersFromJson(*hw, where));
  }
  // Absent in documents written before it existed; null when not found.
  if (auto sb = j.find("server_binary"); sb != j.end() && !sb->is_null()) {
    PGRIG_ASSIGN_OR_RETURN(
        d.server_binary, host::ServerBinaryFromJson(*sb, where + ": server_profile.server_binary"));
  }
  d.profile = std::move(p);
  return d;
}

}  // namespace pgrig::results
