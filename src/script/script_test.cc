#include "script/script.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::script {
namespace {

using ::testing::HasSubstr;

Result<Script> Parse(std::string_view text) {
  static NameTable names;
  return ParseScript(text, "t.sql", names);
}

std::string ParseError(std::string_view text) {
  Result<Script> r = Parse(text);
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? "" : r.status().message();
}

TEST(ScriptTest, BuiltinsParseWithPgbenchText) {
  ASSERT_EQ(BuiltinScripts().size(), 3u);
  NameTable names;
  for (const BuiltinScript& b : BuiltinScripts()) {
    Result<Script> s = ParseScript(b.text, b.desc, names);
    ASSERT_TRUE(s.ok()) << s.status().message();
  }
  Result<Script> tpcb = ParseScript(BuiltinScripts()[0].text, "x", names);
  ASSERT_EQ(tpcb->commands.size(), 11u);
  EXPECT_EQ(tpcb->commands[0].first_line, "\\set aid random(1, 100000 * :scale)");
  EXPECT_EQ(tpcb->commands[4].sql, "BEGIN;");
  const Command& upd = tpcb->commands[5];
  EXPECT_EQ(upd.sql, "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;");
  EXPECT_EQ(upd.sql_params, "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;");
  ASSERT_EQ(upd.param_slots.size(), 2u);
  EXPECT_EQ(names.Name(upd.param_slots[0]), "delta");
  EXPECT_EQ(names.Name(upd.param_slots[1]), "aid");
  EXPECT_EQ(tpcb->commands[9].param_slots.size(), 4u);
  EXPECT_EQ(BuiltinScripts()[2].text,
            "\\set aid random(1, 100000 * :scale)\n"
            "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n");
}

TEST(ScriptTest, FindBuiltinByPrefix) {
  EXPECT_EQ((*FindBuiltin("tpcb"))->name, "tpcb-like");
  EXPECT_EQ((*FindBuiltin("se"))->name, "select-only");
  EXPECT_EQ((*FindBuiltin("si"))->name, "simple-update");
  EXPECT_EQ(FindBuiltin("s").status().message(),
            "ambiguous builtin name: 2 builtin scripts found for prefix \"s\"");
  EXPECT_EQ(FindBuiltin("no-such-builtin").status().message(),
            "no builtin script found for name \"no-such-builtin\"");
  EXPECT_EQ(ListAvailableScripts(),
            "Available builtin scripts:\n"
            "      tpcb-like: <builtin: TPC-B (sort of)>\n"
            "  simple-update: <builtin: simple update>\n"
            "    select-only: <builtin: select only>\n\n");
  EXPECT_THAT(ShowScriptText(**FindBuiltin("se")),
              HasSubstr("-- select-only: <builtin: select only>\n"));
}

TEST(ScriptTest, Weights) {
  EXPECT_EQ(ParseScriptWeight("select-only@3")->weight, 3);
  EXPECT_EQ(ParseScriptWeight("select-only@3")->name, "select-only");
  EXPECT_EQ(ParseScriptWeight("a@b@2")->name, "a@b");
  EXPECT_EQ(ParseScriptWeight("file.sql")->weight, 1);
  EXPECT_EQ(ParseScriptWeight("select-only@one").status().message(),
            "invalid weight specification: @one");
  EXPECT_THAT(ParseScriptWeight("x@-1").status().message(),
              HasSubstr("weight specification out of range (0 .. 2147483647): -1"));
}

TEST(ScriptTest, ChooseScriptFollowsWeights) {
  NameTable names;
  std::vector<Script> scripts(2);
  scripts[0].weight = 1;
  scripts[1].weight = 3;
  Prng rng(1);
  int counts[2] = {0, 0};
  for (int i = 0; i < 4000; i++) counts[ChooseScript(rng, scripts, 4)]++;
  EXPECT_NEAR(counts[1] / 4000.0, 0.75, 0.05);
  std::vector<Script> one(1);
  Prng before(1), after(1);
  EXPECT_EQ(ChooseScript(after, one, 1), 0);
  EXPECT_EQ(before.Next64(), after.Next64()) << "one script draws nothing";
}

TEST(ScriptTest, SqlSplittingFollowsPsqlLexing) {
  Result<Script> s = Parse(
      "-- leading comment\n"
      "BEGIN; SELECT 'a;b', \"x;y\", $$c;d$$, $t$e;$t$ /* f; */ ;\n"
      "SELECT (1;\n2);\n"
      "SELECT E'it\\'s;' ;\n"
      "SELECT 1 \\; SELECT 2;\n"
      "SELECT x::int, :v FROM t\n"
      "  WHERE y = :w;\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->commands.size(), 6u);
  EXPECT_EQ(s->commands[0].sql, "BEGIN;");
  EXPECT_EQ(s->commands[1].sql, "SELECT 'a;b', \"x;y\", $$c;d$$, $t$e;$t$ /* f; */ ;");
  EXPECT_EQ(s->commands[2].sql, "SELECT (1;\n2);");
  EXPECT_EQ(s->commands[3].sql, "SELECT E'it\\'s;' ;");
  EXPECT_EQ(s->commands[4].sql, "SELECT 1 ; SELECT 2;");
  EXPECT_EQ(s->commands[5].sql_params, "SELECT x::int, $1 FROM t\n  WHERE y = $2;");
  EXPECT_EQ(s->commands[5].first_line, "SELECT x::int, :v FROM t");
  EXPECT_EQ(s->commands[5].line, 7);
}

TEST(ScriptTest, GsetAttachesToSqlCommand) {
  Result<Script> s = Parse("SELECT 1 AS a \\gset p_\nSELECT 2 AS b\n\\aset\n\\set x 1\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->commands.size(), 3u);
  EXPECT_EQ(s->commands[0].capture, Capture::kGset);
  EXPECT_EQ(s->commands[0].capture_prefix, "p_");
  EXPECT_EQ(s->commands[0].sql, "SELECT 1 AS a ");
  EXPECT_EQ(s->commands[1].capture, Capture::kAset);
  EXPECT_EQ(s->commands[2].kind, CommandKind::kSet);
}

TEST(ScriptTest, TooManyParameters) {
  std::string sql = "SELECT ";
  for (int i = 0; i < 256; i++) sql += ":v" + std::to_string(i) + ",";
  sql += "1;";
  EXPECT_THAT(ParseError(sql), HasSubstr("statement has too many arguments (maximum is 255)"));
}

TEST(ScriptTest, SleepForms) {
  Result<Script> s = Parse("\\sleep 10ms\n\\sleep 5\n\\sleep 100 us\n\\sleep :d s\n\\sleep 2 MS\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->commands[0].sleep_value * s->commands[0].sleep_unit_us, 10000);
  EXPECT_EQ(s->commands[1].sleep_value * s->commands[1].sleep_unit_us, 5000000);
  EXPECT_EQ(s->commands[2].sleep_value * s->commands[2].sleep_unit_us, 100);
  EXPECT_GE(s->commands[3].sleep_slot, 0);
  EXPECT_EQ(s->commands[4].sleep_unit_us, 1000);
}

TEST(ScriptTest, ConditionalTargets) {
  Result<Script> s = Parse(
      "\\if :a\n"    // 0
      "\\set x 1\n"  // 1
      "\\elif :b\n"  // 2
      "\\if :c\n"    // 3
      "\\endif\n"    // 4
      "\\else\n"     // 5
      "\\set x 3\n"  // 6
      "\\endif\n");  // 7
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->commands[0].next_branch, 2);
  EXPECT_EQ(s->commands[2].next_branch, 5);
  EXPECT_EQ(s->commands[3].next_branch, 4);
  EXPECT_EQ(s->commands[0].endif_index, 7);
  EXPECT_EQ(s->commands[2].endif_index, 7);
  EXPECT_EQ(s->commands[5].endif_index, 7);
  EXPECT_EQ(s->commands[3].endif_index, 4);
}

struct ErrorCase {
  const char* script;
  const char* message;
};

TEST(ScriptTest, ParseErrorVectors) {
  const ErrorCase kCases[] = {
      {"\\set i 1 +\n",
       "t.sql:1: syntax error in command \"set\"\n\\set i 1 +\n          ^ error found here"},
      {"SELECT 1;\n\\set i noSuchFunction()\n",
       "t.sql:2: unexpected function name (noSuchFunction) in command \"set\"\n"
       "\\set i noSuchFunction()\n                    ^ error found here"},
      {"\\set i ;\n",
       "t.sql:1: unexpected character (;) in command \"set\"\n\\set i ;\n       ^ error found "
       "here"},
      {"\\set i\n", "syntax error in command \"set\""},
      {"\\set\n", "t.sql:1: missing argument in command \"set\""},
      {"\\set i CASE TRUE THEN 1 ELSE 0 END\n", "syntax error in command \"set\""},
      {"\\set d ln(1.0, 2.0))\n", "unexpected number of arguments (ln) in command \"set\""},
      {"\\set i least()\n", "at least one argument expected (least)"},
      {"\\set i greatest()\n", "at least one argument expected (greatest)"},
      {"\\set i hash()\n", "unexpected number of arguments (hash)"},
      {"\\set i hash(1,2,3)\n", "unexpected number of arguments (hash)"},
      {"\\set i permute(1)\n", "unexpected number of arguments (permute)"},
      {"\\set i 100000000000000000000\n", "bigint constant overflow"},
      {"\\set d 1.0E309\n", "double constant overflow"},
      {"\\set d .1E310\n", "double constant overflow"},
      {"\\shell\n", "t.sql:1: missing command in command \"shell\"\n\\shell"},
      {"\\setshell var\n", "missing argument in command \"setshell\""},
      {"\\sleep\n", "missing argument in command \"sleep\""},
      {"\\sleep 1 week\n",
       "t.sql:1: unrecognized time unit, must be us, ms or s (week) in command \"sleep\"\n"
       "\\sleep 1 week\n         ^ error found here"},
      {"\\sleep foo\n", "invalid sleep time, must be an integer (foo)"},
      {"\\sleep 1 s x\n", "too many arguments in command \"sleep\""},
      {"\\nosuchcommand\n", "t.sql:1: invalid command in command \"nosuchcommand\""},
      {"", "empty command list for script \"t.sql\""},
      {"-- only a comment\n", "empty command list for script \"t.sql\""},
      {"\\gset\n", "t.sql:1: \\gset must follow an SQL command"},
      {"SELECT 1 \\gset a b\n", "too many arguments in command \"gset\""},
      {"SELECT 1 AS i \\gset\n\\gset\n", "t.sql:2: \\gset must follow an SQL command"},
      {"\\if 1\n", "condition error in script \"t.sql\" command 2: \\if without matching \\endif"},
      {"\\elif 1\n", "condition error in script \"t.sql\" command 1: \\elif without matching \\if"},
      {"\\else\n", "\\else without matching \\if"},
      {"\\endif\n", "\\endif without matching \\if"},
      {"\\if 1\n\\else\n\\elif 0\n\\endif\n", "command 3: \\elif after \\else"},
      {"\\if 1\n\\else\n\\else\n\\endif\n", "command 3: \\else after \\else"},
      {"\\if\n", "syntax error in command \"if\""},
      {"\\if 1\n\\elif +\n\\endif\n", "syntax error in command \"elif\""},
      {"\\if 1\n\\else BAD\n\\endif\n", "unexpected argument in command \"else\""},
      {"\\if 1\n\\endif BAD\n", "unexpected argument in command \"endif\""},
      {"\\startpipeline x\n", "unexpected argument in command \"startpipeline\""},
  };
  for (const ErrorCase& c : kCases) {
    EXPECT_THAT(ParseError(c.script), HasSubstr(c.message)) << c.script;
  }
  std::string shell = "\\shell echo";
  for (int i = 0; i < 255; i++) shell += " x";
  EXPECT_THAT(ParseError(shell + "\n"), HasSubstr("too many arguments in command \"shell\""));
}

TEST(ScriptTest, ContinuationLines) {
  Result<Script> s = Parse("\\set x 1 + \\\n  2\nSELECT :x;\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->commands.size(), 2u);
  EXPECT_EQ(s->commands[0].first_line, "\\set x 1 + \\\n  2");
  EXPECT_EQ(s->commands[1].line, 3);
}

// pgbench's lexer: a backslash-newline right after a word ends the word and
// continues the meta-command on the next line.
TEST(ScriptTest, ContinuationRightAfterAWord) {
  Result<Script> sh = Parse("\\setshell var\\\necho 5\nSELECT :var;\n");
  ASSERT_TRUE(sh.ok()) << sh.status().message();
  ASSERT_EQ(sh->commands.size(), 2u);
  EXPECT_EQ(sh->commands[0].kind, CommandKind::kSetShell);
  EXPECT_EQ(sh->commands[0].argv, (std::vector<std::string>{"setshell", "var", "echo", "5"}));
  EXPECT_EQ(sh->commands[1].line, 3);

  Result<Script> set = Parse("\\set x\\\n 3\n");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->commands[0].argv, (std::vector<std::string>{"set", "x"}));

  Result<Script> sleep = Parse("\\sleep 1\\\r\n ms\n");
  ASSERT_TRUE(sleep.ok()) << sleep.status().message();
  EXPECT_EQ(sleep->commands[0].sleep_value, 1);
  EXPECT_EQ(sleep->commands[0].sleep_unit_us, 1000);

  Result<Script> expr = Parse("\\set x 1 +\\\n2\n");
  ASSERT_TRUE(expr.ok()) << expr.status().message();
}

TEST(ScriptTest, ErrorLineNumbersCountFromOne) {
  EXPECT_THAT(ParseError("SELECT 1;\n\nSELECT 2;\n\\set i 1 +\n"),
              HasSubstr("t.sql:4: syntax error"));
}

}  // namespace
}  // namespace pgrig::script
