#include "pg/wire.h"

#include <gtest/gtest.h>

#include <string>

namespace pgrig::pg {
namespace {

using namespace std::string_literals;

TEST(WireWriterTest, QueryIsTypeLengthAndNulTerminatedText) {
  std::string out;
  WireWriter(&out).Query("SELECT 1");
  EXPECT_EQ(out, "Q\0\0\0\x0dSELECT 1\0"s);
}

TEST(WireWriterTest, ExtendedMessagesAsLibpqSendsThem) {
  std::string out;
  WireWriter w(&out);
  const char* params[] = {"42", nullptr};
  w.Parse("", "SELECT $1, $2");
  w.Bind("", 2, params);
  w.DescribePortal();
  w.Execute();
  w.Sync();
  const std::string want =
      "P\0\0\0\x15\0SELECT $1, $2\0\0\0"s  // no parameter types
      "B\0\0\0\x18\0\0\0\0\0\x02\0\0\0\x02"s
      "42\xff\xff\xff\xff\0\x01\0\0"s  // text in and out
      "D\0\0\0\x06P\0"s
      "E\0\0\0\x09\0\0\0\0\0"s
      "S\0\0\0\x04"s;
  EXPECT_EQ(out, want);
}

TEST(WireWriterTest, BindNamesThePreparedStatement) {
  std::string out;
  WireWriter(&out).Bind("P_3", 0, nullptr);
  EXPECT_EQ(out, "B\0\0\0\x11\0P_3\0\0\0\0\0\0\x01\0\0"s);
}

TEST(WireReaderTest, SplitsMessagesAcrossArbitraryChunks) {
  const std::string stream =
      "2\0\0\0\x04"s
      "C\0\0\0\x0dSELECT 1\0"s
      "Z\0\0\0\x05I"s;
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    WireReader r;
    r.Feed(stream.substr(0, cut));
    std::string types;
    while (auto m = r.Next()) types += m->type;
    r.Feed(stream.substr(cut));
    while (auto m = r.Next()) {
      types += m->type;
      if (m->type == 'C') {
        EXPECT_EQ(m->body, "SELECT 1\0"s);
      }
      if (m->type == 'Z') {
        EXPECT_EQ(m->body, "I");
      }
    }
    EXPECT_EQ(types, "2CZ") << "cut at " << cut;
    EXPECT_TRUE(r.Empty());
  }
}

TEST(WireReaderTest, GrowsForLargeMessages) {
  WireReader r;
  const std::string big(100000, 'x');
  std::string msg = "D"s;
  const auto len = static_cast<uint32_t>(big.size() + 4);
  msg += static_cast<char>(len >> 24);
  msg += static_cast<char>(len >> 16);
  msg += static_cast<char>(len >> 8);
  msg += static_cast<char>(len);
  msg += big;
  for (size_t i = 0; i < msg.size(); i += 4096) r.Feed(msg.substr(i, 4096));
  auto m = r.Next();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->type, 'D');
  EXPECT_EQ(m->body.size(), big.size());
}

TEST(WireReaderTest, ALengthBelowFourIsReportedAsTypeZero) {
  WireReader r;
  r.Feed("Z\0\0\0\x02"s);
  auto m = r.Next();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->type, '\0');
  EXPECT_EQ(r.SyncLoss(), "lost synchronization with server: got message type \"Z\", length 2");
  EXPECT_TRUE(r.Empty());
}

TEST(WireReaderTest, ImpossibleLengthsLoseSynchronizationAtOnce) {
  // Without a limit the reader would wait for 2 GB that never come.
  WireReader r;
  r.Feed("D\x7f\xff\xff\xf0"s);
  auto m = r.Next();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->type, '\0');
  // libpq reports a message too large to buffer with its body's length.
  EXPECT_EQ(r.SyncLoss(),
            "lost synchronization with server: got message type \"D\", length 2147483628");

  // A length with the top bit set is negative to libpq.
  WireReader n;
  n.Feed("Z\xff\xff\xff\xfe"s);
  m = n.Next();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->type, '\0');
  EXPECT_EQ(n.SyncLoss(), "lost synchronization with server: got message type \"Z\", length -2");

  // Over 30000 bytes only for the types that can be long.
  WireReader c;
  c.Feed("C\0\0\x75\x31"s);  // 30001
  m = c.Next();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->type, '\0');
  EXPECT_EQ(c.SyncLoss(), "lost synchronization with server: got message type \"C\", length 30001");

  WireReader d;
  d.Feed("D\0\0\x75\x31"s);
  EXPECT_FALSE(d.Next().has_value());  // a long DataRow is fine: wait for it
  EXPECT_TRUE(d.SyncLoss().empty());
}

std::string Body(std::initializer_list<std::pair<char, std::string>> fields) {
  std::string b;
  for (const auto& [k, v] : fields) {
    b += k;
    b += v;
    b += '\0';
  }
  b += '\0';
  return b;
}

TEST(FormatServerMessageTest, SeverityMessageAndCaretUnderThePosition) {
  const std::string body = Body({{'S', "ERROR"},
                                 {'V', "ERROR"},
                                 {'C', "42P01"},
                                 {'M', "relation \"nope\" does not exist"},
                                 {'P', "15"}});
  const ServerMessageFields f = ParseServerMessage(body);
  EXPECT_EQ(f.sqlstate, "42P01");
  EXPECT_EQ(FormatServerMessage(f, ServerMessageKind::kError, "SELECT * FROM nope;", true),
            "ERROR:  relation \"nope\" does not exist\n"
            "LINE 1: SELECT * FROM nope;\n"
            "                      ^\n");
}

TEST(FormatServerMessageTest, WithoutTheQueryThePositionIsText) {
  const std::string body = Body({{'S', "ERROR"}, {'M', "column \"x\" does not exist"}, {'P', "8"}});
  const ServerMessageFields f = ParseServerMessage(body);
  EXPECT_EQ(FormatServerMessage(f, ServerMessageKind::kError, std::nullopt, true),
            "ERROR:  column \"x\" does not exist at character 8\n");
}

TEST(FormatServerMessageTest, LaterLineTabsAndCarriageReturns) {
  const std::string body = Body({{'S', "ERROR"}, {'M', "m"}, {'P', "17"}});
  const ServerMessageFields f = ParseServerMessage(body);
  // Characters from 1: "SELECT 1,\n" 1-10, "\t2,\r\n" 11-15 ("\r\n" is one line
  // break), "\tbad;" from 16: position 17 is the "b"; the tab shows as a space.
  EXPECT_EQ(FormatServerMessage(f, ServerMessageKind::kError, "SELECT 1,\n\t2,\r\n\tbad;", true),
            "ERROR:  m\n"
            "LINE 3:  bad;\n"
            "         ^\n");
}

TEST(FormatServerMessageTest, LongLinesAreCutAroundThePosition) {
  std::string q = "SELECT ";
  for (int i = 0; i < 20; ++i) q += "c" + std::to_string(i) + ", ";
  q += "bad, ";
  for (int i = 0; i < 20; ++i) q += "d" + std::to_string(i) + ", ";
  q += "1;";
  const size_t bad = q.find("bad") + 1;
  const std::string body = Body({{'S', "ERROR"}, {'M', "m"}, {'P', std::to_string(bad)}});
  const ServerMessageFields f = ParseServerMessage(body);
  const std::string text = FormatServerMessage(f, ServerMessageKind::kError, q, true);
  const size_t nl = text.find('\n');
  const std::string line = text.substr(nl + 1, text.find('\n', nl + 1) - nl - 1);
  const std::string caret = text.substr(text.find('\n', nl + 1) + 1);
  EXPECT_EQ(line.rfind("LINE 1: ...", 0), 0u) << text;
  EXPECT_EQ(line.substr(line.size() - 3), "...") << text;
  EXPECT_LE(line.size(), std::string("LINE 1: ...").size() + 60 + 3);
  // The caret stands under the "b" of "bad".
  EXPECT_EQ(line[caret.find('^')], 'b') << text;
}

TEST(FormatServerMessageTest, WideCharactersTakeTwoColumns) {
  const std::string body = Body({{'S', "ERROR"}, {'M', "m"}, {'P', "13"}});
  const ServerMessageFields f = ParseServerMessage(body);
  // "SELECT '日', x": x is character 13 but column 14, as 日 takes two.
  EXPECT_EQ(FormatServerMessage(f, ServerMessageKind::kError, "SELECT '日', x", true),
            "ERROR:  m\n"
            "LINE 1: SELECT '日', x\n" +
                std::string(8 + 13, ' ') + "^\n");
}

TEST(FormatServerMessageTest, DetailHintQueryAndContextForErrorsOnly) {
  const std::string body = Body({{'S', "ERROR"},
                                 {'M', "boom"},
                                 {'D', "the detail"},
                                 {'H', "the hint"},
                                 {'q', "SELECT no_col"},
                                 {'p', "8"},
                                 {'W', "PL/pgSQL function inline_code_block line 1"}});
  const ServerMessageFields f = ParseServerMessage(body);
  EXPECT_EQ(FormatServerMessage(f, ServerMessageKind::kError, "DO $$ ... $$", true),
            "ERROR:  boom\n"
            "LINE 1: SELECT no_col\n"
            "               ^\n"
            "DETAIL:  the detail\n"
            "HINT:  the hint\n"
            "QUERY:  SELECT no_col\n"
            "CONTEXT:  PL/pgSQL function inline_code_block line 1\n");
  const std::string notice =
      Body({{'S', "NOTICE"}, {'M', "hello"}, {'D', "more"}, {'W', "somewhere"}});
  const ServerMessageFields n = ParseServerMessage(notice);
  EXPECT_EQ(FormatServerMessage(n, ServerMessageKind::kNotice, std::nullopt, true),
            "NOTICE:  hello\nDETAIL:  more\n");
}

TEST(FormatServerMessageTest, PositionPastTheEndShowsNoCaret) {
  const std::string body = Body({{'S', "ERROR"}, {'M', "m"}, {'P', "99"}});
  const ServerMessageFields f = ParseServerMessage(body);
  EXPECT_EQ(FormatServerMessage(f, ServerMessageKind::kError, "SELECT 1", true), "ERROR:  m\n");
}

TEST(FormatServerMessageTest, MalformedPositionsShowNoCaret) {
  for (const char* pos : {"", "abc", "-3", "0", "99999999999999999999999"}) {
    const std::string body = Body({{'S', "ERROR"}, {'M', "m"}, {'P', pos}});
    const ServerMessageFields f = ParseServerMessage(body);
    EXPECT_EQ(FormatServerMessage(f, ServerMessageKind::kError, "SELECT 1", true), "ERROR:  m\n")
        << pos;
  }
}

TEST(FormatServerMessageTest, TruncatedBodiesAreRead) {
  // A field without its terminating NUL, then nothing: no crash, what is there counts.
  const std::string body = "SERROR\0Mhalf"s;
  const ServerMessageFields f = ParseServerMessage(body);
  EXPECT_EQ(FormatServerMessage(f, ServerMessageKind::kError, std::nullopt, true),
            "ERROR:  half\n");
}

}  // namespace
}  // namespace pgrig::pg
