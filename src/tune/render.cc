#include "tune/render.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/strings.h"

namespace pgrig::tune {

namespace {

std::string Header(const TuneReport& r) {
  const TuneInputs& in = r.inputs;
  std::string smt = !in.threads_per_core_known ? ", SMT not given"
                    : in.threads_per_core > 1  ? fmt::format(", SMT x{}", in.threads_per_core)
                                               : ", no SMT";
  std::string pages =
      in.base_page_size == 4096 ? "" : fmt::format(" ({}KB pages)", in.base_page_size / 1024);
  return fmt::format("profile {} for {} memory, {} vCPUs{}, {} storage, {}{}, PostgreSQL {}",
                     ProfileName(r.profile), HumanBytes(in.memory_bytes), in.cpus, smt,
                     StorageClassName(in.storage),
                     in.arch.empty() ? "architecture not given" : in.arch, pages, in.server_major);
}

std::string ApplyName(Apply a) { return a == Apply::kRestart ? "restart" : "reload"; }

std::string DurabilityBanner(const TuneReport& r) {
  if (!r.trades_durability) return "";
  std::string line(78, '!');
  std::string out = line + "\n";
  for (const auto& w : r.warnings) {
    if (w.rfind("BENCHMARK", 0) == 0) out += w + "\n";
  }
  return out + line + "\n";
}

}  // namespace

Result<Format> ParseFormat(std::string_view name) {
  std::string n = ToLower(Trim(name));
  if (n == "table" || n == "text") return Format::kTable;
  if (n == "conf") return Format::kConf;
  if (n == "alter-system" || n == "sql") return Format::kAlterSystem;
  if (n == "json") return Format::kJson;
  return InvalidArgument(
      fmt::format("unknown format '{}'; choose table, conf, alter-system or json", name));
}

std::string RenderTable(const TuneReport& r, const RenderOptions& o) {
  std::string out = DurabilityBanner(r);
  out += "pgrig tune: " + Header(r) + "\n\n";
  std::vector<const Recommendation*> rows;
  for (const auto& rec : r.recommendations) {
    if (rec.changed || o.show_unchanged) rows.push_back(&rec);
  }
  if (rows.empty()) {
    out += "Nothing to change: every setting is already within 5% of the recommendation.\n";
  } else {
    size_t w_name = 7, w_cur = 7, w_new = 8;
    for (auto* rec : rows) {
      w_name = std::max(w_name, rec->name.size());
      w_cur = std::max(w_cur, rec->current.value_or("?").size());
      w_new = std::max(w_new, rec->proposed.size());
    }
    out += fmt::format("  {:<{}}  {:>{}}     {:<{}}  {:<7}  {}\n", "setting", w_name, "current",
                       w_cur, "proposed", w_new, "needs", "rule");
    for (auto* rec : rows) {
      out += fmt::format("{} {:<{}}  {:>{}} {} {:<{}}  {:<7}  {}\n", rec->changed ? "*" : " ",
                         rec->name, w_name, rec->current.value_or("?"), w_cur,
                         rec->changed ? "->" : "==", rec->proposed, w_new, ApplyName(rec->apply),
                         rec->rule);
      out += fmt::format("    {}\n", rec->reason);
    }
    size_t unchanged = r.recommendations.size() - r.Changes().size();
    if (!o.show_unchanged && unchanged > 0) {
      out +=
          fmt::format("  ({} more settings are already within 5%; --all lists them)\n", unchanged);
    }
  }
  out +=
      fmt::format("\nWorst-case memory with these settings: {} of {} ({:.0f}%; limit 90% = {})\n",
                  HumanBytes(r.budget.total_bytes), HumanBytes(r.budget.memory_bytes),
                  100.0 * static_cast<double>(r.budget.total_bytes) /
                      static_cast<double>(std::max<uint64_t>(r.budget.memory_bytes, 1)),
                  HumanBytes(r.budget.limit_bytes));
  for (const auto& l : r.budget.lines) {
    out += fmt::format("  {:<24} {:>10}  {}\n", l.what, HumanBytes(l.bytes), l.formula);
  }
  const HugePagesPlan& h = r.huge_pages;
  out += fmt::format("\nHuge pages: {} pages of {} for {} of shared memory ({}).\n", h.pages,
                     HumanBytes(h.page_size_bytes), HumanBytes(r.budget.shared_memory_bytes),
                     h.method);
  out += fmt::format("  reserve them with: {}\n", h.sysctl);
  for (const auto& n : h.notes) out += "  " + n + "\n";
  if (!r.advice.empty()) {
    out += "\nAdvice for this platform:\n";
    for (const auto& a : r.advice) out += "  - " + a + "\n";
  }
  std::vector<std::string> other;
  for (const auto& w : r.warnings) {
    if (w.rfind("BENCHMARK", 0) != 0) other.push_back(w);
  }
  if (!other.empty()) {
    out += "\nWarnings:\n";
    for (const auto& w : other) out += "  - " + w + "\n";
  }
  if (r.NeedsRestart()) {
    out += "\nSettings marked 'restart' take effect only after the server restarts.\n";
  }
  out += DurabilityBanner(r);
  return out;
}

std::string RenderConf(const TuneReport& r) {
  std::string out = "# PostgreSQL settings from pgrig tune: " + Header(r) + "\n";
  if (r.trades_durability) {
    out += "# WARNING: the benchmark profile trades durability; see the notes below.\n";
  }
  for (const auto* rec : r.Changes()) {
    out += fmt::format("{} = '{}'\t# {} [{}; {}]\n", rec->name, rec->proposed, rec->reason,
                       rec->rule, ApplyName(rec->apply));
  }
  for (const auto& w : r.warnings) out += "# " + w + "\n";
  return out;
}

std::string RenderAlterSystem(const TuneReport& r) {
  std::string out = "-- PostgreSQL settings from pgrig tune: " + Header(r) + "\n";
  for (const auto& w : r.warnings) out += "-- " + w + "\n";
  std::vector<std::string> restart;
  for (const auto* rec : r.Changes()) {
    out +=
        fmt::format("ALTER SYSTEM SET {} = '{}';  -- {}\n", rec->name, rec->proposed, rec->reason);
    if (rec->apply == Apply::kRestart) restart.push_back(rec->name);
  }
  out += "SELECT pg_reload_conf();\n";
  if (!restart.empty()) {
    out += "-- Restart the server for: " + Join(restart, ", ") + "\n";
  }
  return out;
}

nlohmann::json ToJson(const TuneReport& r) {
  nlohmann::json j;
  j["schema"] = "pgrig.tune/1";
  j["profile"] = ProfileName(r.profile);
  j["trades_durability"] = r.trades_durability;
  const TuneInputs& in = r.inputs;
  j["inputs"] = {
      {"memory_bytes", in.memory_bytes},
      {"cpus", in.cpus},
      {"threads_per_core",
       in.threads_per_core_known ? nlohmann::json(in.threads_per_core) : nlohmann::json(nullptr)},
      {"storage", StorageClassName(in.storage)},
      {"server_major", in.server_major},
      {"arch", in.arch.empty() ? nlohmann::json(nullptr) : nlohmann::json(in.arch)},
      {"base_page_size_bytes", in.base_page_size},
      {"huge_page_size_bytes", in.huge_page_size}};
  if (in.connections) j["inputs"]["connections"] = *in.connections;
  if (in.data_size_bytes) j["inputs"]["data_size_bytes"] = *in.data_size_bytes;
  nlohmann::json recs = nlohmann::json::array();
  for (const auto& rec : r.recommendations) {
    nlohmann::json x = {{"name", rec.name},
                        {"proposed", rec.proposed},
                        {"unit", rec.unit},
                        {"reason", rec.reason},
                        {"rule", rec.rule},
                        {"context", rec.context},
                        {"needs", rec.apply == Apply::kRestart ? "restart" : "reload"},
                        {"changed", rec.changed}};
    x["current"] = rec.current ? nlohmann::json(*rec.current) : nlohmann::json(nullptr);
    recs.push_back(std::move(x));
  }
  j["recommendations"] = std::move(recs);
  nlohmann::json lines = nlohmann::json::array();
  for (const auto& l : r.budget.lines) {
    lines.push_back({{"what", l.what}, {"bytes", l.bytes}, {"formula", l.formula}});
  }
  j["memory_budget"] = {{"total_bytes", r.budget.total_bytes},
                        {"memory_bytes", r.budget.memory_bytes},
                        {"limit_bytes", r.budget.limit_bytes},
                        {"shared_memory_bytes", r.budget.shared_memory_bytes},
                        {"lines", std::move(lines)}};
  j["huge_pages"] = {
      {"pages", r.huge_pages.pages},   {"page_size_bytes", r.huge_pages.page_size_bytes},
      {"exact", r.huge_pages.exact},   {"method", r.huge_pages.method},
      {"sysctl", r.huge_pages.sysctl}, {"notes", r.huge_pages.notes}};
  j["advice"] = r.advice;
  j["warnings"] = r.warnings;
  return j;
}

std::string Render(const TuneReport& r, Format f, const RenderOptions& o) {
  switch (f) {
    case Format::kTable:
      return RenderTable(r, o);
    case Format::kConf:
      return RenderConf(r);
    case Format::kAlterSystem:
      return RenderAlterSystem(r);
    case Format::kJson:
      return ToJson(r).dump(2) + "\n";
  }
  return "";
}

}  // namespace pgrig::tune
