#include "results/schemas.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::results {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

TEST(SchemasTest, CheckSchemaSaysWhatWasFound) {
  EXPECT_TRUE(CheckSchema(json{{"schema", "pgrig.suite/2"}}, kSuiteSchema, "s.json").ok());
  struct Case {
    json doc;
    const char* expect;
  };
  const Case cases[] = {
      {json::array(), "s.json: not a pgrig.suite/2 document (not a JSON object)"},
      {json{{"cells", json::array()}}, "s.json: no \"schema\" key; expected \"pgrig.suite/2\""},
      {json{{"schema", 1}}, "no \"schema\" key"},
      {json{{"schema", "pgrig.suite/3"}},
       "\"pgrig.suite/3\" is another version of \"pgrig.suite/2\"; a newer pgrig may have"},
      {json{{"schema", "pgrig.suite/10"}}, "a newer pgrig may have written it"},
      {json{{"schema", "pgrig.suite/1"}}, "an older pgrig wrote it"},
      {json{{"schema", "pgrig.result/1"}}, "a \"pgrig.result/1\" document, not \"pgrig.suite/2\""},
  };
  for (const Case& c : cases) {
    Status s = CheckSchema(c.doc, kSuiteSchema, "s.json");
    ASSERT_FALSE(s.ok()) << c.doc.dump();
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr(c.expect)) << s.message();
  }
}

}  // namespace
}  // namespace pgrig::results
