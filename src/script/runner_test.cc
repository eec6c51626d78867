#include "script/runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::script {
namespace {

using ::testing::HasSubstr;

// A parsed script plus one client's state, for driving the runner.
struct Harness {
  explicit Harness(std::string_view text, QueryMode mode = QueryMode::kSimple,
                   const Shell* shell = nullptr) {
    auto table = std::make_shared<NameTable>();
    table->Intern("scale");
    Result<Script> s = ParseScript(text, "t.sql", *table);
    EXPECT_TRUE(s.ok()) << s.status().message();
    if (s.ok()) script = std::move(*s);
    names = table;
    vars = std::make_unique<Variables>(names);
    vars->Set(*names->Find("scale"), Value::Int(1));
    ScriptRunner::Options o;
    o.mode = mode;
    o.debug_sink = &debug;
    o.shell = shell;
    runner = std::make_unique<ScriptRunner>(o, vars.get(), &rng);
    runner->Start(script, 0);
  }
  std::shared_ptr<NameTable> names;
  Script script;
  std::unique_ptr<Variables> vars;
  Prng rng{5432};
  std::string debug;
  std::unique_ptr<ScriptRunner> runner;
};

TEST(RunnerTest, TpcbLikeSimpleMode) {
  Harness h(BuiltinScripts()[0].text);
  ASSERT_EQ(h.runner->Advance(), StepKind::kSql);
  EXPECT_EQ(h.runner->command_index(), 4);
  EXPECT_EQ(h.runner->sql(), "BEGIN;");
  ASSERT_EQ(h.runner->Advance(), StepKind::kSql);
  const int64_t aid = h.vars->GetByName("aid")->int_value();
  const int64_t delta = h.vars->GetByName("delta")->int_value();
  EXPECT_GE(aid, 1);
  EXPECT_LE(aid, 100000);
  EXPECT_GE(delta, -5000);
  EXPECT_LE(delta, 5000);
  EXPECT_EQ(h.runner->sql(), "UPDATE pgbench_accounts SET abalance = abalance + " +
                                 std::to_string(delta) + " WHERE aid = " + std::to_string(aid) +
                                 ";");
  for (int i = 0; i < 5; i++) ASSERT_EQ(h.runner->Advance(), StepKind::kSql);
  EXPECT_EQ(h.runner->sql(), "END;");
  EXPECT_EQ(h.runner->Advance(), StepKind::kEndOfScript);
}

TEST(RunnerTest, ExtendedModeBindsParams) {
  Harness h("\\set a 7\n\\set b 2.5\nSELECT :a, :b, :a, :nosuch;\n", QueryMode::kExtended);
  ASSERT_EQ(h.runner->Advance(), StepKind::kSql);
  EXPECT_EQ(h.runner->sql(), "SELECT $1, $2, $3, $4;");
  ASSERT_EQ(h.runner->param_count(), 4);
  EXPECT_STREQ(h.runner->params()[0], "7");
  EXPECT_STREQ(h.runner->params()[1], "2.5");
  EXPECT_STREQ(h.runner->params()[2], "7");
  EXPECT_EQ(h.runner->params()[3], nullptr);
}

TEST(RunnerTest, SimpleModeLeavesUnknownVariables) {
  Harness h("SELECT :nosuch, '::x', :scale;\n");
  ASSERT_EQ(h.runner->Advance(), StepKind::kSql);
  EXPECT_EQ(h.runner->sql(), "SELECT :nosuch, '::x', 1;");
}

TEST(RunnerTest, SameSeedSameDraws) {
  Harness a(BuiltinScripts()[0].text), b(BuiltinScripts()[0].text);
  ASSERT_EQ(a.runner->Advance(), StepKind::kSql);
  ASSERT_EQ(b.runner->Advance(), StepKind::kSql);
  EXPECT_EQ(a.vars->GetByName("aid")->int_value(), b.vars->GetByName("aid")->int_value());
}

TEST(RunnerTest, RetryRedrawsTheSameValues) {
  Harness h("\\set r random(1, 1000000000)\nSELECT :r;\n");
  ASSERT_EQ(h.runner->Advance(), StepKind::kSql);
  const std::string first(h.runner->sql());
  h.runner->RestartForRetry();
  ASSERT_EQ(h.runner->Advance(), StepKind::kSql);
  EXPECT_EQ(h.runner->sql(), first);
}

TEST(RunnerTest, Conditionals) {
  const char* kScript =
      "\\if :x = 1\n\\set r 1\n\\elif :x = 2\n\\set r 2\n\\else\n\\set r 3\n\\endif\nSELECT :r;\n";
  for (int x = 1; x <= 3; x++) {
    Harness h(kScript);
    ASSERT_TRUE(h.vars->SetByName("-D", "x", Value::Int(x)).ok());
    ASSERT_EQ(h.runner->Advance(), StepKind::kSql) << h.runner->error().message();
    EXPECT_EQ(h.runner->sql(), "SELECT " + std::to_string(x) + ";");
  }
}

TEST(RunnerTest, NestedConditionalInFalseBranch) {
  Harness h("\\if false\n\\if 1/0\n\\endif\n\\set r 1\n\\else\n\\set r 2\n\\endif\nSELECT :r;\n");
  ASSERT_EQ(h.runner->Advance(), StepKind::kSql) << h.runner->error().message();
  EXPECT_EQ(h.runner->sql(), "SELECT 2;");
}

TEST(RunnerTest, SleepUnitsAndVariables) {
  Harness h("\\set one 1.0\n\\sleep :one ms\n\\sleep 100 us\n\\sleep 0 s\n\\sleep 2\n");
  ASSERT_EQ(h.runner->Advance(), StepKind::kSleep);
  EXPECT_EQ(h.runner->sleep_us(), 1000);
  ASSERT_EQ(h.runner->Advance(), StepKind::kSleep);
  EXPECT_EQ(h.runner->sleep_us(), 100);
  ASSERT_EQ(h.runner->Advance(), StepKind::kSleep);
  EXPECT_EQ(h.runner->sleep_us(), 0);
  ASSERT_EQ(h.runner->Advance(), StepKind::kSleep);
  EXPECT_EQ(h.runner->sleep_us(), 2000000);
  EXPECT_EQ(h.runner->Advance(), StepKind::kEndOfScript);
}

struct RuntimeError {
  const char* script;
  const char* error;
  const char* abort;
};

TEST(RunnerTest, RuntimeErrorVectors) {
  const RuntimeError kCases[] = {
      {"\\set i 1/0\n", "division by zero",
       "client 3 aborted in command 0 (set) of script 0; evaluation of meta-command failed"},
      {"\\set . 1\n", "set: invalid variable name: \".\"", "assignment of meta-command failed"},
      {"\\set i :nosuchvariable\n", "undefined variable \"nosuchvariable\"", "(set)"},
      {"\\sleep :nosuchvariable\n", "sleep: undefined variable \"nosuchvariable\"",
       "(sleep) of script 0; execution of meta-command failed"},
      {"\\endpipeline\n", "not in pipeline mode", "(endpipeline)"},
      {"\\startpipeline\n", "cannot use pipeline mode with the simple query protocol",
       "(startpipeline)"},
      {"\\shell echo ::foo :nosuchvariable\n", "echo: undefined variable \":nosuchvariable\"",
       "(shell) of script 0; execution of meta-command failed"},
  };
  for (const RuntimeError& c : kCases) {
    Harness h(c.script);
    ASSERT_EQ(h.runner->Advance(), StepKind::kError) << c.script;
    EXPECT_EQ(h.runner->error().message(), c.error) << c.script;
    EXPECT_THAT(h.runner->AbortMessage(3), HasSubstr(c.abort)) << c.script;
  }
}

// pgbench logs the cause before the abort line, except where the abort line
// already names the problem (the pipeline errors).
TEST(RunnerTest, CauseIsWhatPgbenchLogsBeforeTheAbort) {
  const std::pair<const char*, const char*> kCases[] = {
      {"\\set i 1/0\n", "division by zero"},
      {"\\set . 1\n", "set: invalid variable name: \".\""},
      {"\\set i int(0.0/0)\n", "double to int overflow for NaN"},
      {"\\sleep :nosuchvariable\n", "sleep: undefined variable \"nosuchvariable\""},
      {"\\setshell v echo x\n", "echo: shell command must return an integer (not \"x\n\")"},
      {"\\endpipeline\n", ""},
      {"\\startpipeline\n", ""},
  };
  for (const auto& [script, cause] : kCases) {
    Harness h(script);
    ASSERT_EQ(h.runner->Advance(), StepKind::kError) << script;
    EXPECT_EQ(h.runner->cause(), cause) << script;
  }
  Harness open("\\startpipeline\nSELECT 1;\n", QueryMode::kExtended);
  EXPECT_EQ(open.runner->Advance(), StepKind::kPipelineStart);
  EXPECT_EQ(open.runner->Advance(), StepKind::kSql);
  ASSERT_EQ(open.runner->Advance(), StepKind::kError);
  EXPECT_EQ(open.runner->cause(), "");
}

TEST(RunnerTest, PipelineState) {
  Harness h("\\startpipeline\n\\startpipeline\n", QueryMode::kExtended);
  EXPECT_EQ(h.runner->Advance(), StepKind::kPipelineStart);
  ASSERT_EQ(h.runner->Advance(), StepKind::kError);
  EXPECT_EQ(h.runner->error().message(), "already in pipeline mode");

  Harness g("\\startpipeline\nSELECT 1 \\gset\n\\endpipeline\n", QueryMode::kExtended);
  EXPECT_EQ(g.runner->Advance(), StepKind::kPipelineStart);
  ASSERT_EQ(g.runner->Advance(), StepKind::kError);
  EXPECT_THAT(g.runner->AbortMessage(0),
              HasSubstr("(gset) of script 0; \\gset is not allowed in pipeline mode"));

  Harness open("\\startpipeline\nSELECT 1;\n", QueryMode::kPrepared);
  EXPECT_EQ(open.runner->Advance(), StepKind::kPipelineStart);
  EXPECT_EQ(open.runner->Advance(), StepKind::kSql);
  ASSERT_EQ(open.runner->Advance(), StepKind::kError);
  EXPECT_EQ(open.runner->AbortMessage(0),
            "client 0 aborted: end of script reached with pipeline open");
}

TEST(RunnerTest, ShellCommands) {
  Harness h(
      "\\set one 1.0\n\\setshell another_one echo :one\n\\set x debug(:another_one)\n"
      "\\shell true\n\\setshell bad echo -n one\n");
  ASSERT_EQ(h.runner->Advance(), StepKind::kError);
  EXPECT_EQ(h.debug, "debug(script=0,command=3): int 1\n");
  EXPECT_EQ(h.runner->error().message(),
            "echo: shell command must return an integer (not \"one\")");

  Harness missing("\\setshell var no-such-command-xyz 2>/dev/null\n");
  ASSERT_EQ(missing.runner->Advance(), StepKind::kError);
  EXPECT_THAT(missing.runner->error().message(),
              HasSubstr("could not read result of shell command"));

  // Both run "/bin/sh -c" as system() and popen() do: the shell calls
  // itself "sh" (its complaints read "sh: 1: ..." as under pgbench).
  Harness sh("\\shell test \"$0\" = sh\n\\setshell v echo $0\n");
  ASSERT_EQ(sh.runner->Advance(), StepKind::kError);
  EXPECT_EQ(sh.runner->command_index(), 1);
  EXPECT_EQ(sh.runner->error().message(),
            "echo: shell command must return an integer (not \"sh\n\")");

  // Only the first line counts, as with fgets() into a 64-byte buffer.
  Harness first("\\setshell v printf '12\\n34\\n'\n\\set x debug(:v)\n");
  EXPECT_EQ(first.runner->Advance(), StepKind::kEndOfScript);
  EXPECT_EQ(first.debug, "debug(script=0,command=2): int 12\n");

  Harness fails("\\shell false\n");
  ASSERT_EQ(fails.runner->Advance(), StepKind::kError);
  EXPECT_THAT(fails.runner->AbortMessage(0),
              HasSubstr("(shell) of script 0; execution of meta-command failed"));
}

TEST(RunnerTest, GsetStoresRows) {
  Harness h("SELECT 1 AS a, 'x' AS b \\gset p_\nSELECT :p_a, :p_b;\n");
  ASSERT_EQ(h.runner->Advance(), StepKind::kSql);
  std::string_view names[] = {"a", "b"};
  std::string_view values[] = {"1", "x"};
  ASSERT_TRUE(h.runner->StoreRow(names, values).ok());
  ASSERT_EQ(h.runner->Advance(), StepKind::kSql);
  EXPECT_EQ(h.runner->sql(), "SELECT 1, x;");

  Harness bad("SELECT 1 \\gset\n");
  ASSERT_EQ(bad.runner->Advance(), StepKind::kSql);
  std::string_view col[] = {"?column?"};
  std::string_view one[] = {"1"};
  EXPECT_EQ(bad.runner->StoreRow(col, one).message(), "error storing into variable ?column?");
  EXPECT_EQ(bad.runner->cause(), "gset: invalid variable name: \"?column?\"");
}

TEST(RunnerTest, MetaDoneWhenAsked) {
  auto names = std::make_shared<NameTable>();
  Result<Script> s = ParseScript("\\set a 1\nSELECT :a;\n", "t", *names);
  ASSERT_TRUE(s.ok());
  Variables vars(names);
  Prng rng(1);
  ScriptRunner r({.report_meta_commands = true}, &vars, &rng);
  r.Start(*s, 0);
  EXPECT_EQ(r.Advance(), StepKind::kMetaDone);
  EXPECT_EQ(r.command_index(), 0);
  EXPECT_EQ(r.Advance(), StepKind::kSql);
  EXPECT_EQ(r.command_index(), 1);
}

// The shell is injectable (the fuzzer relies on it never running its input).
class RecordingShell : public Shell {
 public:
  bool Run(const std::string& command) const override {
    commands.push_back("run:" + command);
    return command != "fail";
  }
  std::optional<std::string> FirstLine(const std::string& command, bool* closed_ok) const override {
    commands.push_back("line:" + command);
    *closed_ok = true;
    return std::string("42\n");
  }
  mutable std::vector<std::string> commands;
};

TEST(RunnerTest, InjectedShellReceivesSubstitutedCommands) {
  RecordingShell shell;
  Harness h(
      "\\set n 7\n\\shell no-such-binary :n\n\\setshell v no-such-binary x\n"
      "\\set x debug(:v + :n)\n\\shell fail\n",
      QueryMode::kSimple, &shell);
  EXPECT_EQ(h.runner->Advance(), StepKind::kError);
  EXPECT_EQ(shell.commands, (std::vector<std::string>{"run:no-such-binary 7",
                                                      "line:no-such-binary x", "run:fail"}));
  EXPECT_EQ(h.debug, "debug(script=0,command=4): int 49\n");  // pgbench counts from 1
  EXPECT_THAT(h.runner->AbortMessage(0), HasSubstr("(shell) of script 0"));
}

}  // namespace
}  // namespace pgrig::script
