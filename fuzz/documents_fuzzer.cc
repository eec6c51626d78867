// documents_fuzzer: libFuzzer target over the results module's typed
// readers other than the report's (suite_fuzzer has that one): what
// `pgrig run --resume` reads (suite.json, results/suite_doc.h), what
// `pgrig fleet run --resume` reads (fleet-run.json, results/fleet_run_doc.h),
// what `pgrig cost --results` reads (results/measured_run.h), and what a
// fleet's merge reads from each client (a pgrig.result/1, result_doc.h, its
// "tpcc" section, tpcc_section.h, and a "server_profile", profile_json.h).
//
// Input: the bytes of one such file; every reader gets them all.
//
// Checked invariants (abort = crash report): nothing a reader calls throws
// out of it; a refusal's message starts with the name it was given; and
// whatever a reader accepts, its own writer writes a document that the
// reader accepts again (a writer and reader that disagree would make a
// resumed suite, a resumed fleet run or a merged result unreadable), and
// for the suite, the tpcc section and the manifest the second reading
// writes the same text as the first.
//
// Stateless between inputs; single-threaded.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "results/fleet_run_doc.h"
#include "results/json_read.h"
#include "results/measured_run.h"
#include "results/profile_json.h"
#include "results/result_doc.h"
#include "results/suite_doc.h"
#include "results/tpcc_section.h"

namespace {

bool NamesSource(const pgrig::Status& s, const std::string& source) {
  return s.message().rfind(source, 0) == 0;
}

void SuiteDoc(std::string_view text) {
  const std::string file = "fuzz/suite.json";
  auto doc = pgrig::results::ParseSuiteDoc(text, file);
  if (!doc.ok()) {
    FUZZ_CHECK(NamesSource(doc.status(), file));
    return;
  }
  const std::string once = pgrig::results::SuiteDocToJson(*doc).dump();
  auto again = pgrig::results::ParseSuiteDoc(once, "again");
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(pgrig::results::SuiteDocToJson(*again).dump() == once);
}

void Manifest(std::string_view text) {
  const std::string file = "fuzz/fleet-run.json";
  auto m = pgrig::results::ParseManifest(std::string(text), file);
  if (!m.ok()) {
    FUZZ_CHECK(NamesSource(m.status(), file));
    return;
  }
  const std::string once = pgrig::results::ManifestToJson(*m);
  auto again = pgrig::results::ParseManifest(once, "again");
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(pgrig::results::ManifestToJson(*again) == once);
}

void MeasuredRun(std::string_view text) {
  const std::string file = "fuzz/result.json";
  auto r = pgrig::results::ParseMeasuredRun(text, file);
  if (!r.ok()) FUZZ_CHECK(NamesSource(r.status(), file));
}

// A client's document as a fleet's merge reads it.
void ResultDoc(std::string_view text) {
  const std::string where = "host a: a.json";
  auto j = pgrig::results::ParseJson(text, where);
  if (!j.ok()) return;  // ParseJson's refusals are suite_fuzzer's to check
  auto doc = pgrig::results::ResultDocFromJson(*j, where);
  if (!doc.ok()) {
    FUZZ_CHECK(NamesSource(doc.status(), where));
  } else {
    FUZZ_CHECK(
        pgrig::results::ResultDocFromJson(pgrig::results::ResultDocToJson(*doc), "again").ok());
  }
  if (!j->is_object()) return;
  if (auto t = j->find("tpcc"); t != j->end()) {
    auto s = pgrig::results::ReadTpccSection(*t, where);
    if (!s.ok()) {
      FUZZ_CHECK(NamesSource(s.status(), where));
    } else {
      const nlohmann::json once = pgrig::results::TpccSectionJson(*s);
      auto again = pgrig::results::ReadTpccSection(once, "again");
      FUZZ_CHECK(again.ok());
      FUZZ_CHECK(pgrig::results::TpccSectionJson(*again) == once);
    }
  }
  if (auto p = j->find("server_profile"); p != j->end()) {
    auto s = pgrig::results::ServerProfileFromJson(*p, where);
    if (!s.ok()) FUZZ_CHECK(NamesSource(s.status(), where));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  SuiteDoc(text);
  Manifest(text);
  MeasuredRun(text);
  ResultDoc(text);
  return 0;
}
