#include "cost/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cost/format.h"

namespace pgrig::cost {

using Json = nlohmann::json;

namespace {

std::string Usd(double v) { return FormatNumber(v, 2); }
std::string Price(double v) { return FormatPlain(v, 6); }
std::string Signed(double v, int decimals) {
  std::string s = FormatNumber(v, decimals);
  return (v > 0 && s.find_first_not_of("0.,") != std::string::npos) ? "+" + s : s;
}

std::string VcpuText(int vcpus, VcpuKind kind) {
  return fmt::format("{} vCPUs ({})", vcpus,
                     kind == VcpuKind::kCore ? "each a physical core" : "each a hyperthread");
}

Json ProvenanceJson(const Provenance& p) {
  return Json{{"date", p.date}, {"source", p.source}, {"file", p.file}, {"line", p.line}};
}

Json IntervalJson(const std::optional<Interval>& iv) {
  if (!iv) return nullptr;
  return Json::array({iv->low, iv->high});
}

Json OptionalNumber(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}

bool Selected(const std::string& pattern, std::initializer_list<std::string_view> fields) {
  if (pattern.empty()) return true;
  for (auto f : fields) {
    if (MatchesPattern(pattern, f)) return true;
  }
  return false;
}

std::string IntervalText(const std::optional<Interval>& iv, int decimals) {
  if (!iv) return "unknown";
  return fmt::format("{} to {}", FormatNumber(iv->low, decimals), FormatNumber(iv->high, decimals));
}

}  // namespace

std::string RenderTable(const std::vector<std::string>& headers,
                        const std::vector<std::vector<std::string>>& rows,
                        const std::vector<bool>& right, const std::string& indent) {
  std::vector<size_t> width(headers.size(), 0);
  auto measure = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < r.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], r[i].size());
    }
  };
  measure(headers);
  for (const auto& r : rows) measure(r);
  auto line = [&](const std::vector<std::string>& r) {
    std::string out = indent;
    for (size_t i = 0; i < width.size(); ++i) {
      const std::string cell = i < r.size() ? r[i] : "";
      const bool last = i + 1 == width.size();
      if (i < right.size() && right[i]) {
        out += std::string(width[i] - cell.size(), ' ') + cell;
      } else {
        out += cell;
        if (!last) out += std::string(width[i] - cell.size(), ' ');
      }
      if (!last) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(headers);
  for (const auto& r : rows) out += line(r);
  return out;
}

// ---------------------------------------------------------------- catalog

std::string RenderCatalogList(const Catalog& catalog, const std::string& pattern) {
  std::string out;
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : catalog.instances()) {
    if (!Selected(pattern, {e.instance_type, e.provider, e.region})) continue;
    rows.push_back({e.provider, e.region, e.instance_type, ArchName(e.arch),
                    std::to_string(e.vcpus), VcpuKindName(e.vcpu_is), FormatPlain(e.memory_gib),
                    Price(e.usd_per_hour), e.provenance.date, e.provenance.source});
  }
  if (!rows.empty()) {
    out += "Instances (on-demand):\n";
    out += RenderTable({"provider", "region", "instance type", "arch", "vCPUs", "vCPU is",
                        "memory GiB", "USD/hour", "date", "source"},
                       rows, {false, false, false, false, true, false, true, true, false, false});
  }
  rows.clear();
  for (const auto& s : catalog.flex_shapes()) {
    if (!Selected(pattern, {s.shape, s.provider, s.region})) continue;
    rows.push_back({s.provider, s.region, s.shape, ArchName(s.arch),
                    std::to_string(s.vcpus_per_ocpu), VcpuKindName(s.vcpu_is),
                    Price(s.usd_per_ocpu_hour), Price(s.usd_per_gb_hour), s.provenance.date,
                    s.provenance.source});
  }
  if (!rows.empty()) {
    if (!out.empty()) out += "\n";
    out +=
        "Flexible shapes (USD/hour = OCPUs x USD per OCPU-hour + GB x USD per GB-hour;\n"
        "use as --instance SHAPE:OCPUS:MEMORY_GB):\n";
    out += RenderTable({"provider", "region", "shape", "arch", "vCPUs/OCPU", "vCPU is",
                        "USD/OCPU-hour", "USD/GB-hour", "date", "source"},
                       rows, {false, false, false, false, true, false, true, true, false, false});
  }
  rows.clear();
  for (const auto& s : catalog.storage()) {
    if (!Selected(pattern, {s.name, s.provider, s.region})) continue;
    rows.push_back({s.provider, s.region, s.name, Price(s.usd_per_gb_month),
                    FormatPlain(s.included_iops), Price(s.usd_per_iops_month),
                    FormatPlain(s.included_mbps), Price(s.usd_per_mbps_month), s.provenance.date,
                    s.provenance.source});
  }
  if (!rows.empty()) {
    if (!out.empty()) out += "\n";
    out += "Block storage (per volume; IOPS and MB/s above the included amount are extra):\n";
    out += RenderTable({"provider", "region", "name", "USD/GB-month", "incl. IOPS",
                        "USD/IOPS-month", "incl. MB/s", "USD/MB/s-month", "date", "source"},
                       rows, {false, false, false, true, true, true, true, true, false, false});
  }
  if (out.empty()) {
    out = fmt::format("No catalog entries match \"{}\".\n", pattern);
  }
  return out;
}

Json InstanceToJson(const InstancePrice& e) {
  return Json{{"provider", e.provider},
              {"region", e.region},
              {"instance_type", e.instance_type},
              {"arch", ArchName(e.arch)},
              {"vcpus", e.vcpus},
              {"vcpu_is", VcpuKindName(e.vcpu_is)},
              {"memory_gib", e.memory_gib},
              {"usd_per_hour", e.usd_per_hour},
              {"sizing", e.sizing.empty() ? Json(nullptr) : Json(e.sizing)},
              {"provenance", ProvenanceJson(e.provenance)}};
}

Json CatalogListToJson(const Catalog& catalog, const std::string& pattern) {
  Json inst = Json::array(), shapes = Json::array(), storage = Json::array();
  for (const auto& e : catalog.instances()) {
    if (Selected(pattern, {e.instance_type, e.provider, e.region}))
      inst.push_back(InstanceToJson(e));
  }
  for (const auto& s : catalog.flex_shapes()) {
    if (!Selected(pattern, {s.shape, s.provider, s.region})) continue;
    shapes.push_back(Json{{"provider", s.provider},
                          {"region", s.region},
                          {"shape", s.shape},
                          {"arch", ArchName(s.arch)},
                          {"vcpus_per_ocpu", s.vcpus_per_ocpu},
                          {"vcpu_is", VcpuKindName(s.vcpu_is)},
                          {"usd_per_ocpu_hour", s.usd_per_ocpu_hour},
                          {"usd_per_gb_hour", s.usd_per_gb_hour},
                          {"provenance", ProvenanceJson(s.provenance)}});
  }
  for (const auto& s : catalog.storage()) {
    if (!Selected(pattern, {s.name, s.provider, s.region})) continue;
    storage.push_back(Json{{"provider", s.provider},
                           {"region", s.region},
                           {"name", s.name},
                           {"usd_per_gb_month", s.usd_per_gb_month},
                           {"included_iops", s.included_iops},
                           {"usd_per_iops_month", s.usd_per_iops_month},
                           {"included_mbps", s.included_mbps},
                           {"usd_per_mbps_month", s.usd_per_mbps_month},
                           {"provenance", ProvenanceJson(s.provenance)}});
  }
  return Json{{"instances", inst}, {"flex_shapes", shapes}, {"storage", storage}};
}

// ---------------------------------------------------------------- TCO

std::string DescribeInstance(const InstancePrice& e) {
  return fmt::format("{}: {} {}, {}, {}, {} GiB memory", e.instance_type, e.provider, e.region,
                     ArchName(e.arch), VcpuText(e.vcpus, e.vcpu_is), FormatPlain(e.memory_gib));
}

std::string RenderMachineCost(const MachineCost& m) {
  const Tco& t = m.tco;
  std::string out;
  if (m.instance) {
    out += DescribeInstance(*m.instance) + "\n";
    const Provenance& p = m.instance->provenance;
    out +=
        fmt::format("  catalog price {} USD per hour on demand, recorded {}, source: {} ({}:{})\n",
                    Price(m.instance->usd_per_hour), p.date, p.source, p.file, p.line);
    if (!m.instance->sizing.empty()) out += fmt::format("  = {}\n", m.instance->sizing);
  } else {
    out += m.label + "\n";
  }
  if (m.price_from != "catalog") {
    out += fmt::format("  price used: {} USD per hour ({})\n", Price(t.input.usd_per_hour),
                       m.price_from);
  }
  if (m.storage) {
    const Provenance& p = m.storage->provenance;
    out += fmt::format("  storage {} {} {}: {} USD per GB-month, recorded {}, source: {}\n",
                       m.storage->provider, m.storage->region, m.storage->name,
                       Price(m.storage->usd_per_gb_month), p.date, p.source);
  }
  out += fmt::format("\nTotal cost of ownership: {} instance{} for {} year{} ({} hours each)\n",
                     t.input.count, t.input.count == 1 ? "" : "s", FormatPlain(t.input.years),
                     t.input.years == 1 ? "" : "s", FormatNumber(t.hours, 0));
  std::vector<std::vector<std::string>> rows;
  for (const auto& l : t.lines) {
    const bool pct = l.unit == "%";
    rows.push_back(
        {l.component,
         pct ? FormatPlain(l.quantity) + "%" : FormatNumber(l.quantity, 0) + " " + l.unit,
         pct ? "" : Price(l.unit_price_usd) + " " + l.price_unit, Usd(l.usd), l.how});
  }
  rows.push_back({"total", "", "", Usd(t.total_usd), ""});
  out += RenderTable({"component", "quantity", "unit price", "USD", "arithmetic"}, rows,
                     {false, true, false, true, false});
  out += fmt::format("  = {} USD per year, {} USD per month, {} USD per hour for the cluster\n",
                     Usd(t.usd_per_year), Usd(t.usd_per_month), FormatNumber(t.usd_per_hour, 4));

  if (m.claim) {
    const ClaimCheck& c = *m.claim;
    out += "\nClaim check:\n";
    if (c.claimed_usd_per_hour) {
      out += fmt::format(
          "  claimed price {} USD per hour vs {} USD per hour used above: {} USD per hour "
          "({}%)\n",
          Price(*c.claimed_usd_per_hour), Price(c.reference_usd_per_hour),
          Signed(c.hourly_difference_usd, 4), Signed(c.hourly_difference_pct, 1));
      out += fmt::format(
          "  with the claimed price the total would be {} USD instead of {} USD ({} USD)\n",
          Usd(c.tco_at_claimed_price->total_usd), Usd(t.total_usd),
          Signed(c.tco_at_claimed_price->total_usd - t.total_usd, 2));
    }
    if (c.claimed_total_usd) {
      out += fmt::format("  claimed total {} USD vs {} USD computed: {} USD ({}%)\n",
                         Usd(*c.claimed_total_usd), Usd(t.total_usd),
                         Signed(c.total_difference_usd, 2), Signed(c.total_difference_pct, 1));
      if (c.implied_usd_per_hour) {
        out += fmt::format(
            "  the claimed total implies {} USD per instance-hour (the inputs above use {})\n",
            Price(*c.implied_usd_per_hour), Price(t.input.usd_per_hour));
      } else {
        out +=
            "  the claimed total is below the storage and support costs alone: no hourly "
            "price reproduces it\n";
      }
    }
  }
  return out;
}

std::string RenderPriceRatios(const std::vector<MachineCost>& machines) {
  if (machines.size() < 2) return "";
  const MachineCost& base = machines[0];
  std::string out =
      fmt::format("Relative to {} (price per instance-hour, total cost):\n", base.label);
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 1; i < machines.size(); ++i) {
    const MachineCost& m = machines[i];
    std::string claimed = "";
    if (base.claim && base.claim->claimed_usd_per_hour && m.claim &&
        m.claim->claimed_usd_per_hour) {
      claimed = fmt::format(
          "{}x",
          FormatNumber(*m.claim->claimed_usd_per_hour / *base.claim->claimed_usd_per_hour, 3));
    }
    rows.push_back(
        {m.label,
         fmt::format("{}x",
                     FormatNumber(m.tco.input.usd_per_hour / base.tco.input.usd_per_hour, 3)),
         fmt::format("{}x", FormatNumber(m.tco.total_usd / base.tco.total_usd, 3)), claimed});
  }
  out += RenderTable({"machine", "price ratio", "total ratio", "claimed price ratio"}, rows,
                     {false, true, true, true});
  return out;
}

Json MachineCostToJson(const MachineCost& m) {
  const Tco& t = m.tco;
  Json components = Json::array();
  for (const auto& l : t.lines) {
    Json c{{"component", l.component}, {"usd", l.usd}, {"arithmetic", l.how}};
    if (l.unit == "%") {
      c["percent"] = l.quantity;
    } else {
      c["quantity"] = l.quantity;
      c["unit"] = l.unit;
      c["unit_price_usd"] = l.unit_price_usd;
      c["price_unit"] = l.price_unit;
    }
    components.push_back(c);
  }
  const TcoInput& in = t.input;
  Json j{{"label", m.label},
         {"instance", m.instance ? InstanceToJson(*m.instance) : Json(nullptr)},
         {"price_from", m.price_from},
         {"inputs",
          {{"usd_per_hour", in.usd_per_hour},
           {"count", in.count},
           {"years", in.years},
           {"storage_gb_per_instance", in.storage_gb},
           {"iops_per_instance", in.iops},
           {"throughput_mbps_per_instance", in.throughput_mbps},
           {"support_pct", in.support_pct},
           {"discount_pct", in.discount_pct},
           {"hours_per_year", kHoursPerYear},
           {"months_per_year", kMonthsPerYear}}},
         {"storage", nullptr},
         {"hours_per_instance", t.hours},
         {"months", t.months},
         {"components", components},
         {"compute_usd", t.compute_usd},
         {"discount_usd", t.discount_usd},
         {"storage_usd", t.storage_usd},
         {"iops_usd", t.iops_usd},
         {"throughput_usd", t.throughput_usd},
         {"subtotal_usd", t.subtotal_usd},
         {"support_usd", t.support_usd},
         {"total_usd", t.total_usd},
         {"usd_per_year", t.usd_per_year},
         {"usd_per_month", t.usd_per_month},
         {"cluster_usd_per_hour", t.usd_per_hour},
         {"claim", nullptr}};
  if (m.storage) {
    j["storage"] = Json{{"provider", m.storage->provider},
                        {"region", m.storage->region},
                        {"name", m.storage->name},
                        {"usd_per_gb_month", m.storage->usd_per_gb_month},
                        {"included_iops", m.storage->included_iops},
                        {"usd_per_iops_month", m.storage->usd_per_iops_month},
                        {"included_mbps", m.storage->included_mbps},
                        {"usd_per_mbps_month", m.storage->usd_per_mbps_month},
                        {"provenance", ProvenanceJson(m.storage->provenance)}};
  }
  if (m.claim) {
    const ClaimCheck& c = *m.claim;
    Json cj{{"reference_usd_per_hour", c.reference_usd_per_hour}};
    if (c.claimed_usd_per_hour) {
      cj["claimed_usd_per_hour"] = *c.claimed_usd_per_hour;
      cj["hourly_difference_usd"] = c.hourly_difference_usd;
      cj["hourly_difference_pct"] = c.hourly_difference_pct;
      cj["total_usd_at_claimed_price"] = c.tco_at_claimed_price->total_usd;
    }
    if (c.claimed_total_usd) {
      cj["claimed_total_usd"] = *c.claimed_total_usd;
      cj["total_difference_usd"] = c.total_difference_usd;
      cj["total_difference_pct"] = c.total_difference_pct;
      cj["implied_usd_per_hour"] = OptionalNumber(c.implied_usd_per_hour);
    }
    j["claim"] = cj;
  }
  return j;
}

Json PriceRatiosToJson(const std::vector<MachineCost>& machines) {
  Json out = Json::array();
  if (machines.size() < 2) return out;
  const MachineCost& base = machines[0];
  for (size_t i = 1; i < machines.size(); ++i) {
    const MachineCost& m = machines[i];
    Json r{{"label", m.label},
           {"relative_to", base.label},
           {"price_ratio", m.tco.input.usd_per_hour / base.tco.input.usd_per_hour},
           {"total_ratio", m.tco.total_usd / base.tco.total_usd},
           {"claimed_price_ratio", nullptr}};
    if (base.claim && base.claim->claimed_usd_per_hour && m.claim &&
        m.claim->claimed_usd_per_hour) {
      r["claimed_price_ratio"] = *m.claim->claimed_usd_per_hour / *base.claim->claimed_usd_per_hour;
    }
    out.push_back(r);
  }
  return out;
}

// ---------------------------------------------------------------- per-dollar

std::string RenderPerDollar(const PerDollarReport& report) {
  std::string out =
      "Per-dollar figures at each machine's price (transactions per USD = tps x 3,600 / USD "
      "per hour):\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : report.rows) {
    const PricedRun& p = r.priced;
    rows.push_back({p.run.file, p.instance ? p.instance->instance_type : "-", Price(p.usd_per_hour),
                    FormatNumber(p.run.tps, 1), FormatNumber(r.figures.transactions_per_usd, 0),
                    IntervalText(r.figures.transactions_per_usd_ci95, 0),
                    FormatNumber(r.figures.usd_per_million_transactions, 4),
                    IntervalText(r.figures.usd_per_million_transactions_ci95, 4)});
  }
  out += RenderTable({"results file", "instance", "USD/hour", "tps", "transactions per USD",
                      "95% interval", "USD per 1M transactions", "95% interval"},
                     rows, {false, false, true, true, true, true, true, true});
  out += "\nWhere the figures come from:\n";
  for (const auto& r : report.rows) {
    out += fmt::format("  {}: price {}; tps interval from {}\n", r.priced.run.file,
                       r.priced.price_from,
                       r.figures.interval_from.empty() ? "nowhere (unknown: no summary.tps_ci95 "
                                                         "and fewer than 2 summary.tps_samples)"
                                                       : r.figures.interval_from);
  }
  if (!report.ratios.empty()) {
    const std::string& base = report.rows[0].priced.run.file;
    out += fmt::format("\nTransactions per USD relative to {}:\n", base);
    for (size_t i = 0; i < report.ratios.size(); ++i) {
      const PerDollarRatio& q = report.ratios[i];
      const std::string& file = report.rows[i + 1].priced.run.file;
      std::string verdict;
      switch (q.verdict) {
        case stats::Verdict::kHigher:
          verdict = fmt::format("{} buys more transactions per USD", file);
          break;
        case stats::Verdict::kLower:
          verdict = fmt::format("{} buys fewer transactions per USD", file);
          break;
        case stats::Verdict::kNoSignificantDifference:
          verdict = "no significant difference (the 95% interval spans 1.0)";
          break;
        case stats::Verdict::kInsufficientData:
          verdict = "interval unknown: cannot say whether the difference is real";
          break;
      }
      std::string iv = q.ci95
                           ? fmt::format(" [95% interval {} to {}]", FormatNumber(q.ci95->low, 3),
                                         FormatNumber(q.ci95->high, 3))
                           : "";
      std::string df = q.welch_df && std::isfinite(*q.welch_df)
                           ? fmt::format(", Welch df {}", FormatNumber(*q.welch_df, 1))
                           : "";
      out += fmt::format("  {}: {}x{}: {}\n    ({}{})\n", file, FormatNumber(q.ratio, 3), iv,
                         verdict, q.method, df);
    }
  }
  return out;
}

Json PerDollarToJson(const PerDollarReport& report) {
  Json runs = Json::array();
  for (const auto& r : report.rows) {
    const PricedRun& p = r.priced;
    runs.push_back(
        Json{{"file", p.run.file},
             {"schema", p.run.schema},
             {"tps", p.run.tps},
             {"tps_ci95", IntervalJson(p.run.tps_ci95)},
             {"tps_samples", p.run.tps_samples},
             {"instance", p.instance ? InstanceToJson(*p.instance) : Json(nullptr)},
             {"usd_per_hour", p.usd_per_hour},
             {"price_from", p.price_from},
             {"transactions_per_usd", r.figures.transactions_per_usd},
             {"transactions_per_usd_ci95", IntervalJson(r.figures.transactions_per_usd_ci95)},
             {"usd_per_million_transactions", r.figures.usd_per_million_transactions},
             {"usd_per_million_transactions_ci95",
              IntervalJson(r.figures.usd_per_million_transactions_ci95)},
             {"interval_from",
              r.figures.interval_from.empty() ? Json(nullptr) : Json(r.figures.interval_from)},
             {"warnings", p.run.warnings}});
  }
  Json ratios = Json::array();
  for (size_t i = 0; i < report.ratios.size(); ++i) {
    const PerDollarRatio& q = report.ratios[i];
    ratios.push_back(Json{{"file", report.rows[i + 1].priced.run.file},
                          {"relative_to", report.rows[0].priced.run.file},
                          {"transactions_per_usd_ratio", q.ratio},
                          {"ci95", IntervalJson(q.ci95)},
                          {"from_samples", q.from_samples},
                          {"welch_df", OptionalNumber(q.welch_df)},
                          {"method", q.method},
                          {"verdict", VerdictKey(q.verdict)}});
  }
  return Json{{"runs", runs}, {"ratios", ratios}};
}

}  // namespace pgrig::cost
