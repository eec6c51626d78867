#include "results/suite_doc.h"

#include <fmt/format.h>

#include "results/json_read.h"
#include "results/schemas.h"
#include "results/suite_json.h"

namespace pgrig::results {

namespace {

using json = nlohmann::json;

json OptionalString(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }

json RunToJson(const SuiteRun& r) {
  return json{{"run", r.run},
              {"cell", r.cell},
              {"iteration", r.iteration},
              {"position", r.position},
              {"status", r.ok ? "ok" : "failed"},
              {"error", OptionalString(r.error)},
              {"started_at", r.started_at},
              {"ended_at", OptionalString(r.ended_at)},
              {"before_run", r.before_run},
              {"warmup_s", r.warmup_s},
              {"server_settings", r.server_settings},
              {"result", r.result},
              {"observation", r.observation},
              {"bottleneck", r.bottleneck},
              {"disturbed", r.disturbed},
              {"notes", r.notes}};
}

}  // namespace

json SuiteCellJson(const plan::Plan& plan, const plan::Cell& cell,
                   const std::map<std::string, std::string>& per_connection,
                   const std::map<std::string, std::string>& server) {
  json c = CellToJson(plan, cell);
  c["settings"] = {{"per_connection", per_connection}, {"server", server}};
  c["summary"] = nullptr;
  return c;
}

json SuiteDocToJson(const SuiteDoc& d) {
  json price = nullptr;
  if (d.price) {
    price = {{"usd_per_hour", d.price->usd_per_hour},
             {"instance_type",
              d.price->instance_type.empty() ? json(nullptr) : json(d.price->instance_type)},
             {"from", d.price->from}};
  }
  json scale = nullptr;
  if (d.scale) {
    scale = {{"value", d.scale->value}, {"reason", d.scale->reason}, {"loaded", d.scale->loaded}};
  }
  json lio = nullptr;
  if (d.lio) {
    lio = {{"tables", d.lio->tables},
           {"blocks_per_table", d.lio->blocks_per_table},
           {"size", d.lio->size},
           {"reason", d.lio->reason},
           {"loaded", d.lio->loaded}};
  }
  json tpcc = nullptr;
  if (d.tpcc) {
    tpcc = {{"warehouses", d.tpcc->warehouses},
            {"procedures", d.tpcc->procedures},
            {"loaded", d.tpcc->loaded}};
  }
  json runs = json::array();
  for (const SuiteRun& r : d.runs) runs.push_back(RunToJson(r));
  json builds = json::array();
  for (const SuiteBuild& b : d.builds) builds.push_back({{"name", b.name}, {"server", b.server}});
  json suite{
      {"schema", kSuiteSchema},
      {"tool", {{"name", "pgrig"}, {"version", d.tool_version}, {"command", "run"}}},
      {"command_line", d.command_line},
      {"label", d.label},
      {"started_at", d.started_at},
      {"ended_at", OptionalString(d.ended_at)},
      {"resumed_at", d.resumed_at},
      {"complete", d.complete},
      {"stop_reason", OptionalString(d.stop_reason)},
      {"wall_s", d.wall_s ? json(*d.wall_s) : json(nullptr)},
      {"cpus", d.cpus},
      {"plan",
       {{"name", d.plan_name},
        {"description", d.plan_description},
        {"source_path", d.plan_source_path},
        {"source_text", d.plan_source_text},
        {"parsed", d.plan_parsed}}},
      {"target",
       {{"description", d.target_description},
        {"embedded", d.target_embedded},
        {"local", d.target_local}}},
      {"scale", scale},
      {"lio", lio},
      {"tpcc", tpcc},
      {"fsync", d.fsync},
      {"facts", d.facts},
      {"builds", builds},
      {"settings",
       {{"all_cells", d.settings_all_cells},
        {"server_changed", d.settings_server_changed},
        {"restored", d.settings_restored ? json(*d.settings_restored) : json(nullptr)}}},
      {"price", price},
      {"iterations", d.iterations},
      {"cells", d.cells},
      {"runs", runs},
      {"notes", d.notes},
  };
  UpdateCellSummaries(suite);
  return suite;
}

namespace {

Result<SuiteRun> RunFromJson(const json& j, const std::string& where) {
  if (!j.is_object()) return InvalidArgument(where + ": not an object");
  const JsonFields f(j, where);
  SuiteRun r;
  PGRIG_RETURN_IF_ERROR(f.Int("run", r.run));
  PGRIG_RETURN_IF_ERROR(f.Str("cell", r.cell));
  PGRIG_RETURN_IF_ERROR(f.Int("iteration", r.iteration));
  PGRIG_RETURN_IF_ERROR(f.Int("position", r.position));
  std::string status;
  PGRIG_RETURN_IF_ERROR(f.Str("status", status));
  r.ok = status == "ok";
  PGRIG_RETURN_IF_ERROR(f.OptStr("error", r.error));
  PGRIG_RETURN_IF_ERROR(f.Str("started_at", r.started_at));
  PGRIG_RETURN_IF_ERROR(f.OptStr("ended_at", r.ended_at));
  PGRIG_RETURN_IF_ERROR(f.Strings("before_run", r.before_run));
  PGRIG_RETURN_IF_ERROR(f.Int("warmup_s", r.warmup_s));
  PGRIG_RETURN_IF_ERROR(f.StringMap("server_settings", r.server_settings));
  r.result = f.Raw("result");
  r.observation = f.Raw("observation");
  r.bottleneck = f.Raw("bottleneck");
  r.disturbed = f.Raw("disturbed");
  PGRIG_RETURN_IF_ERROR(f.Strings("notes", r.notes));
  return r;
}

Status ReadHeader(const JsonFields& f, SuiteDoc& d) {
  PGRIG_RETURN_IF_ERROR(f.Strings("command_line", d.command_line));
  PGRIG_RETURN_IF_ERROR(f.Str("label", d.label));
  PGRIG_RETURN_IF_ERROR(f.Str("started_at", d.started_at));
  PGRIG_RETURN_IF_ERROR(f.OptStr("ended_at", d.ended_at));
  PGRIG_RETURN_IF_ERROR(f.Strings("resumed_at", d.resumed_at));
  PGRIG_RETURN_IF_ERROR(f.Bool("complete", d.complete));
  PGRIG_RETURN_IF_ERROR(f.OptStr("stop_reason", d.stop_reason));
  PGRIG_RETURN_IF_ERROR(f.OptNum("wall_s", d.wall_s));
  PGRIG_RETURN_IF_ERROR(f.Int("cpus", d.cpus));
  PGRIG_RETURN_IF_ERROR(f.Int("iterations", d.iterations));
  PGRIG_RETURN_IF_ERROR(f.Strings("notes", d.notes));
  d.fsync = f.Raw("fsync");
  d.facts = f.Raw("facts");
  PGRIG_ASSIGN_OR_RETURN(const json* tool, f.Object("tool"));
  if (tool != nullptr)
    PGRIG_RETURN_IF_ERROR(JsonFields(*tool, "tool").Str("version", d.tool_version));
  return Status::Ok();
}

Status ReadParts(const JsonFields& f, const std::string& where, SuiteDoc& d) {
  PGRIG_ASSIGN_OR_RETURN(const json* plan, f.Object("plan"));
  if (plan != nullptr) {
    const JsonFields p(*plan, where + ": plan");
    PGRIG_RETURN_IF_ERROR(p.Str("name", d.plan_name));
    PGRIG_RETURN_IF_ERROR(p.Str("description", d.plan_description));
    PGRIG_RETURN_IF_ERROR(p.Str("source_path", d.plan_source_path));
    PGRIG_RETURN_IF_ERROR(p.Str("source_text", d.plan_source_text));
    d.plan_parsed = p.Raw("parsed");
  }
  PGRIG_ASSIGN_OR_RETURN(const json* target, f.Object("target"));
  if (target != nullptr) {
    const JsonFields t(*target, where + ": target");
    PGRIG_RETURN_IF_ERROR(t.Str("description", d.target_description));
    PGRIG_RETURN_IF_ERROR(t.Bool("embedded", d.target_embedded));
    PGRIG_RETURN_IF_ERROR(t.Bool("local", d.target_local));
  }
  PGRIG_ASSIGN_OR_RETURN(const json* scale, f.Object("scale"));
  if (scale != nullptr) {
    const JsonFields s(*scale, where + ": scale");
    SuiteScale& out = d.scale.emplace();
    PGRIG_RETURN_IF_ERROR(s.Int("value", out.value));
    PGRIG_RETURN_IF_ERROR(s.Str("reason", out.reason));
    PGRIG_RETURN_IF_ERROR(s.Bool("loaded", out.loaded));
  }
  PGRIG_ASSIGN_OR_RETURN(const json* lio, f.Object("lio"));
  if (lio != nullptr) {
    const JsonFields l(*lio, where + ": lio");
    SuiteLio& out = d.lio.emplace();
    PGRIG_RETURN_IF_ERROR(l.Int("tables", out.tables));
    PGRIG_RETURN_IF_ERROR(l.Int("blocks_per_table", out.blocks_per_table));
    PGRIG_RETURN_IF_ERROR(l.Str("size", out.size));
    PGRIG_RETURN_IF_ERROR(l.Str("reason", out.reason));
    PGRIG_RETURN_IF_ERROR(l.Bool("loaded", out.loaded));
  }
  // Absent from suites written before it was recorded.
  PGRIG_ASSIGN_OR_RETURN(const json* tpcc, f.Object("tpcc"));
  if (tpcc != nullptr) {
    const JsonFields t(*tpcc, where + ": tpcc");
    SuiteTpcc& out = d.tpcc.emplace();
    PGRIG_RETURN_IF_ERROR(t.Int("warehouses", out.warehouses));
    PGRIG_RETURN_IF_ERROR(t.Bool("procedures", out.procedures));
    PGRIG_RETURN_IF_ERROR(t.Bool("loaded", out.loaded));
  }
  PGRIG_ASSIGN_OR_RETURN(const json* settings, f.Object("settings"));
  if (settings != nullptr) {
    const JsonFields s(*settings, where + ": settings");
    PGRIG_RETURN_IF_ERROR(s.StringMap("all_cells", d.settings_all_cells));
    PGRIG_RETURN_IF_ERROR(s.Bool("server_changed", d.settings_server_changed));
    if (s.Get("restored") != nullptr) {
      bool restored = false;
      PGRIG_RETURN_IF_ERROR(s.Bool("restored", restored));
      d.settings_restored = restored;
    }
  }
  if (const json* builds = f.Get("builds"); builds != nullptr && !builds->is_null()) {
    if (!builds->is_array()) return f.Bad("builds", "an array");
    for (size_t i = 0; i < builds->size(); ++i) {
      const json& b = (*builds)[i];
      const std::string at = where + ": builds[" + std::to_string(i) + "]";
      if (!b.is_object()) return InvalidArgument(at + ": not an object");
      const JsonFields bf(b, at);
      SuiteBuild& out = d.builds.emplace_back();
      PGRIG_RETURN_IF_ERROR(bf.Str("name", out.name));
      out.server = bf.Raw("server");
    }
  }
  PGRIG_ASSIGN_OR_RETURN(const json* price, f.Object("price"));
  if (price != nullptr) {
    const JsonFields p(*price, where + ": price");
    SuitePrice& out = d.price.emplace();
    const json* usd = p.Get("usd_per_hour");
    if (usd == nullptr || !usd->is_number()) return p.Bad("usd_per_hour", "a number");
    out.usd_per_hour = usd->get<double>();
    std::optional<std::string> type;
    PGRIG_RETURN_IF_ERROR(p.OptStr("instance_type", type));
    out.instance_type = type.value_or("");
    PGRIG_RETURN_IF_ERROR(p.Str("from", out.from));
  }
  return Status::Ok();
}

}  // namespace

Result<SuiteDoc> SuiteDocFromJson(const json& j, const std::string& where) {
  // A suite begun by an older pgrig (/1) is read and resumed; it is written
  // back as /2, its earlier runs as they were (readers take both forms).
  const json* schema = FindPath(j, {"schema"});
  if (schema == nullptr || !schema->is_string() || schema->get<std::string>() != kSuiteSchemaV1) {
    PGRIG_RETURN_IF_ERROR(CheckSchema(j, kSuiteSchema, where));
  }
  const JsonFields f(j, where);
  SuiteDoc d;
  PGRIG_RETURN_IF_ERROR(ReadHeader(f, d));
  PGRIG_RETURN_IF_ERROR(ReadParts(f, where, d));
  if (const json* cells = f.Get("cells")) {
    if (!cells->is_array()) return f.Bad("cells", "an array");
    for (const json& c : *cells) {
      const json* id = FindPath(c, {"id"});
      if (id == nullptr || !id->is_string()) {
        return f.Bad("cells", "an array of cells, each with an \"id\"");
      }
    }
    d.cells = *cells;
  }
  if (const json* runs = f.Get("runs")) {
    if (!runs->is_array()) return f.Bad("runs", "an array");
    for (size_t i = 0; i < runs->size(); ++i) {
      PGRIG_ASSIGN_OR_RETURN(SuiteRun r,
                             RunFromJson((*runs)[i], fmt::format("{}: runs[{}]", where, i)));
      d.runs.push_back(std::move(r));
    }
  }
  return d;
}

Result<SuiteDoc> ParseSuiteDoc(std::string_view text, const std::string& file) {
  PGRIG_ASSIGN_OR_RETURN(json doc, ParseJsonObject(text, file, "a pgrig.suite document"));
  return SuiteDocFromJson(doc, file);
}

std::vector<std::string> SuiteCellIds(const SuiteDoc& doc) {
  std::vector<std::string> ids;
  for (const json& c : doc.cells) ids.push_back(c.value("id", ""));
  return ids;
}

std::vector<std::pair<std::string, int>> FinishedRuns(const SuiteDoc& doc) {
  std::vector<std::pair<std::string, int>> out;
  for (const SuiteRun& r : doc.runs) {
    if (r.ok) out.emplace_back(r.cell, r.iteration);
  }
  return out;
}

}  // namespace pgrig::results
