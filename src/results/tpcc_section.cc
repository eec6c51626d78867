#include "results/tpcc_section.h"

#include <array>
#include <span>

#include "results/histogram_json.h"
#include "results/json_read.h"
#include "results/metrics.h"

namespace pgrig::results {
namespace {

using nlohmann::json;

json Opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json TypeJson(const TpccType& t) {
  return {
      {"histogram", t.histogram ? HistogramJson(*t.histogram, BucketForm::kPacked) : json(nullptr)},
      {"transactions", t.transactions},
      {"failures", t.failures},
      {"retries", t.retries},
      {"latency_ms",
       {{"p50", t.latency_ms.p50},
        {"p90", t.latency_ms.p90},
        {"p95", t.latency_ms.p95},
        {"p99", t.latency_ms.p99},
        {"max", t.latency_ms.max}}}};
}

Status ReadType(const std::string& name, const json& x, const std::string& where, TpccType* t) {
  const std::string at = where + ": tpcc.types." + name;
  if (!x.is_object()) return InvalidArgument(at + ": not an object");
  const JsonFields f(x, at);
  t->name = name;
  PGRIG_RETURN_IF_ERROR(f.Count("transactions", t->transactions));
  PGRIG_RETURN_IF_ERROR(f.Count("failures", t->failures));
  PGRIG_RETURN_IF_ERROR(f.Count("retries", t->retries));
  if (const json* h = f.Get("histogram"); h != nullptr) {
    PGRIG_ASSIGN_OR_RETURN(t->histogram, HistogramFromJson(*h, at + ".histogram"));
  }
  PGRIG_ASSIGN_OR_RETURN(const json* lat, f.Object("latency_ms"));
  if (lat != nullptr) {
    const JsonFields l(*lat, at + ".latency_ms");
    PGRIG_RETURN_IF_ERROR(l.Num("p50", t->latency_ms.p50));
    PGRIG_RETURN_IF_ERROR(l.Num("p90", t->latency_ms.p90));
    PGRIG_RETURN_IF_ERROR(l.Num("p95", t->latency_ms.p95));
    PGRIG_RETURN_IF_ERROR(l.Num("p99", t->latency_ms.p99));
    PGRIG_RETURN_IF_ERROR(l.Num("max", t->latency_ms.max));
  }
  return Status::Ok();
}

}  // namespace

TpccLatencyMs TpccLatencyFromHistogram(const stats::Histogram& h) {
  TpccLatencyMs l;
  if (h.count() == 0) return l;
  constexpr std::array<double, 4> kPs = {50, 90, 95, 99};
  const std::vector<int64_t> v = h.ValuesAtPercentiles(kPs);
  l.p50 = static_cast<double>(v[0]) / 1e6;
  l.p90 = static_cast<double>(v[1]) / 1e6;
  l.p95 = static_cast<double>(v[2]) / 1e6;
  l.p99 = static_cast<double>(v[3]) / 1e6;
  l.max = static_cast<double>(h.max()) / 1e6;
  return l;
}

json TpccSectionJson(const TpccSection& s) {
  json types = json::object();
  for (const TpccType& t : s.types) types[t.name] = TypeJson(t);
  json out = {{"metric", kMetricNopm},
              {"warehouses", s.warehouses},
              {"procedures", s.procedures},
              {"spec_timing", s.spec_timing},
              {"warmup_s", s.warmup_s},
              {"warmup_ended_early", s.warmup_ended_early},
              {"run_constants", s.run_constants ? json{{"c_last", s.run_constants->c_last},
                                                       {"c_id", s.run_constants->c_id},
                                                       {"ol_i_id", s.run_constants->ol_i_id}}
                                                : json(nullptr)},
              {"window_s", s.window_s},
              {kMetricNopm, Opt(s.nopm)},
              {"tpmc_like", Opt(s.tpmc_like)},
              {"tpm", Opt(s.tpm)},
              {"fleet_client", s.fleet_client},
              {"new_orders",
               {{"committed", s.new_orders.committed},
                {"rolled_back", s.new_orders.rolled_back},
                {"database", s.new_orders.database ? json(*s.new_orders.database) : json(nullptr)},
                {"agree", s.new_orders.agree ? json(*s.new_orders.agree) : json(nullptr)}}},
              {"types", std::move(types)},
              {"delivery", s.delivery ? json{{"districts", s.delivery->districts},
                                             {"delivered", s.delivery->delivered},
                                             {"skipped", s.delivery->skipped},
                                             {"skipped_share", s.delivery->skipped_share}}
                                      : json(nullptr)},
              {"client_cpu_us_per_transaction", s.client_cpu_us_per_transaction},
              {"server_cpu_us_per_transaction", Opt(s.server_cpu_us_per_transaction)},
              {"checks", {{"warehouses", s.checked_warehouses}, {"conditions", s.conditions}}},
              {"consistent", s.consistent},
              {"refused", s.refused}};
  if (s.fleet_clients) out["fleet_clients"] = *s.fleet_clients;
  return out;
}

Result<TpccSection> ReadTpccSection(const json& section, const std::string& where) {
  if (!section.is_object()) return InvalidArgument(where + ": \"tpcc\" must be an object");
  const JsonFields f(section, where + ": tpcc");
  TpccSection s;
  PGRIG_RETURN_IF_ERROR(f.Int("warehouses", s.warehouses));
  PGRIG_RETURN_IF_ERROR(f.Bool("procedures", s.procedures));
  PGRIG_RETURN_IF_ERROR(f.Bool("spec_timing", s.spec_timing));
  PGRIG_RETURN_IF_ERROR(f.Count("warmup_s", s.warmup_s));
  PGRIG_RETURN_IF_ERROR(f.Bool("warmup_ended_early", s.warmup_ended_early));
  PGRIG_ASSIGN_OR_RETURN(const json* rc, f.Object("run_constants"));
  if (rc != nullptr) {
    const JsonFields r(*rc, where + ": tpcc.run_constants");
    TpccRunConstants& c = s.run_constants.emplace();
    PGRIG_RETURN_IF_ERROR(r.Int("c_last", c.c_last));
    PGRIG_RETURN_IF_ERROR(r.Int("c_id", c.c_id));
    PGRIG_RETURN_IF_ERROR(r.Int("ol_i_id", c.ol_i_id));
  }
  PGRIG_RETURN_IF_ERROR(f.Num("window_s", s.window_s));
  if (s.window_s < 0) return f.Bad("window_s", "a number of at least 0");
  PGRIG_RETURN_IF_ERROR(f.OptNum(kMetricNopm, s.nopm));
  PGRIG_RETURN_IF_ERROR(f.OptNum("tpmc_like", s.tpmc_like));
  PGRIG_RETURN_IF_ERROR(f.OptNum("tpm", s.tpm));
  PGRIG_RETURN_IF_ERROR(f.Bool("fleet_client", s.fleet_client));
  PGRIG_RETURN_IF_ERROR(f.OptInt("fleet_clients", s.fleet_clients));
  PGRIG_ASSIGN_OR_RETURN(const json* no, f.Object("new_orders"));
  if (no != nullptr) {
    const JsonFields n(*no, where + ": tpcc.new_orders");
    PGRIG_RETURN_IF_ERROR(n.Count("committed", s.new_orders.committed));
    PGRIG_RETURN_IF_ERROR(n.Count("rolled_back", s.new_orders.rolled_back));
    PGRIG_RETURN_IF_ERROR(n.OptInt("database", s.new_orders.database));
    if (const json* a = n.Get("agree"); a != nullptr) {
      if (!a->is_boolean()) return n.Bad("agree", "true, false or null");
      s.new_orders.agree = a->get<bool>();
    }
  }
  PGRIG_ASSIGN_OR_RETURN(const json* types, f.Object("types"));
  if (types == nullptr) return f.Bad("types", "an object of the transaction types");
  for (const auto& [name, x] : types->items()) {
    PGRIG_RETURN_IF_ERROR(ReadType(name, x, where, &s.types.emplace_back()));
  }
  PGRIG_ASSIGN_OR_RETURN(const json* d, f.Object("delivery"));
  if (d != nullptr) {
    const JsonFields dl(*d, where + ": tpcc.delivery");
    TpccDelivery& out = s.delivery.emplace();
    PGRIG_RETURN_IF_ERROR(dl.Count("districts", out.districts));
    PGRIG_RETURN_IF_ERROR(dl.Count("delivered", out.delivered));
    PGRIG_RETURN_IF_ERROR(dl.Count("skipped", out.skipped));
    PGRIG_RETURN_IF_ERROR(dl.Num("skipped_share", out.skipped_share));
  }
  PGRIG_RETURN_IF_ERROR(f.Num("client_cpu_us_per_transaction", s.client_cpu_us_per_transaction));
  PGRIG_RETURN_IF_ERROR(f.OptNum("server_cpu_us_per_transaction", s.server_cpu_us_per_transaction));
  PGRIG_ASSIGN_OR_RETURN(const json* checks, f.Object("checks"));
  if (checks != nullptr) {
    const JsonFields c(*checks, where + ": tpcc.checks");
    PGRIG_ASSIGN_OR_RETURN(const json* w, c.Array("warehouses"));
    if (w != nullptr) {
      for (const json& x : *w) {
        if (!x.is_number_integer()) return c.Bad("warehouses", "an array of whole numbers");
        s.checked_warehouses.push_back(x.get<int64_t>());
      }
    }
    PGRIG_ASSIGN_OR_RETURN(const json* conditions, c.Array("conditions"));
    if (conditions != nullptr) s.conditions = *conditions;
  }
  PGRIG_RETURN_IF_ERROR(f.Bool("consistent", s.consistent));
  PGRIG_RETURN_IF_ERROR(f.Strings("refused", s.refused));
  return s;
}

}  // namespace pgrig::results
