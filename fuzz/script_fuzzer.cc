// script_fuzzer: libFuzzer target over ParseScript() and ScriptRunner.
//
// The input is script text, as in a pgbench -f file.  When it parses, the
// target checks the parsed form's invariants (branch targets, parameter
// limit, SQL segment bounds), renders it (RenderScript, ExprToString,
// ShowScriptText: what --show-script and -r print), and runs it in each
// query mode for a few transactions with a fake engine: SQL commands get
// canned \gset/\aset rows, \sleep is not slept (the runner only reports the
// duration), and \shell/\setshell go to a fake ProcessRunner, so no input can
// start a real process.  A violated invariant aborts with a message, which
// libFuzzer reports as a crash.
//
// Stateless between inputs; single-threaded.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/process.h"
#include "common/status.h"
#include "fuzz_check.h"
#include "script/expr.h"
#include "script/prng.h"
#include "script/runner.h"
#include "script/script.h"
#include "script/variables.h"

namespace pgrig::script {
namespace {

// Transactions per query mode, and a bound on steps per transaction (each
// Advance() moves forward through the script, so this bound is never the
// limiting factor for a correct runner; it guards against a runner that
// loops).
constexpr int kTransactions = 3;
constexpr int kMaxSteps = 10000;

// Stands in for /bin/sh -c: never runs anything.  The answer depends only on
// the command text so that runs are reproducible: "nosuch" -> could not
// start; "false" -> exit 1 with no output; "text" -> a non-integer line;
// otherwise exit 0 printing the command's length.
// Never runs anything: the fuzzer's input must not reach a real shell.
class FakeShell : public Shell {
 public:
  bool Run(const std::string& command) const override {
    return command.find("false") == std::string::npos &&
           command.find("nosuch") == std::string::npos;
  }
  std::optional<std::string> FirstLine(const std::string& command, bool* closed_ok) const override {
    *closed_ok = true;
    if (command.find("nosuch") != std::string::npos) return std::nullopt;
    return command.find("text") != std::string::npos ? "some text\n"
                                                     : std::to_string(command.size()) + "\n";
  }
};

bool IsBranch(CommandKind k) {
  return k == CommandKind::kElif || k == CommandKind::kElse || k == CommandKind::kEndif;
}

void CheckParsed(const Script& script, const NameTable& names) {
  FUZZ_CHECK(!script.commands.empty());
  const int n = static_cast<int>(script.commands.size());
  for (const Command& c : script.commands) {
    if (c.kind == CommandKind::kIf || c.kind == CommandKind::kElif) {
      FUZZ_CHECK(c.next_branch > 0 && c.next_branch < n);
      FUZZ_CHECK(IsBranch(script.commands[static_cast<size_t>(c.next_branch)].kind));
    }
    if (c.kind == CommandKind::kIf || c.kind == CommandKind::kElif ||
        c.kind == CommandKind::kElse) {
      FUZZ_CHECK(c.endif_index > 0 && c.endif_index < n);
      FUZZ_CHECK(script.commands[static_cast<size_t>(c.endif_index)].kind == CommandKind::kEndif);
    }
    if (c.kind == CommandKind::kSql) {
      FUZZ_CHECK(c.param_slots.size() <= static_cast<size_t>(kMaxSqlParams));
      for (const auto& seg : c.segments) {
        FUZZ_CHECK(seg.literal_begin <= seg.literal_end && seg.literal_end <= c.sql.size());
        FUZZ_CHECK(seg.slot < names.size());
      }
      for (int slot : c.param_slots) FUZZ_CHECK(slot >= 0 && slot < names.size());
    }
    if (c.kind == CommandKind::kSet || c.kind == CommandKind::kIf || c.kind == CommandKind::kElif) {
      std::string rendered = ExprToString(c.expr, names);
      FUZZ_CHECK(!rendered.empty());
    }
    if (c.kind == CommandKind::kShell || c.kind == CommandKind::kSetShell) {
      FUZZ_CHECK(!c.shell_words.empty());
    }
  }
}

// What the engine would do with a \gset / \aset command: hand back rows.
// One value comes from the SQL text, so the fuzzer controls a string that
// later expressions parse (pgbench's makeVariableValue()).
void StoreRows(ScriptRunner& runner) {
  const Command& cmd = runner.command();
  if (cmd.capture == Capture::kNone) return;
  std::string_view sql = runner.sql();
  std::string_view tail = sql.substr(sql.size() > 12 ? sql.size() - 12 : 0);
  const std::string_view names[] = {"one", "foo", "n", "tail", "?column?"};
  const std::string_view values[] = {"1", "-10.1", "null", tail, "x"};
  const int rows = cmd.capture == Capture::kAset ? 2 : 1;
  for (int r = 0; r < rows; r++) {
    pgrig::Status st = runner.StoreRow(names, values);
    (void)st;  // "?column?" is not a valid name; an error is expected
  }
}

void RunScript(const Script& script, std::shared_ptr<const NameTable> names, QueryMode mode,
               bool report_meta) {
  FakeShell shell;
  std::string debug_out;
  Variables vars(names);
  FUZZ_CHECK(vars.SetByName("fuzz", "client_id", Value::Int(0)).ok());
  FUZZ_CHECK(vars.SetByName("fuzz", "scale", Value::Int(1)).ok());
  FUZZ_CHECK(vars.SetByName("fuzz", "default_seed", Value::Int(5432)).ok());
  FUZZ_CHECK(vars.SetByName("fuzz", "random_seed", Value::Int(5432)).ok());
  FUZZ_CHECK(vars.SetStringByName("fuzz", "zero", "0").ok());
  Prng rng(5432);
  ScriptRunner::Options options;
  options.mode = mode;
  options.report_meta_commands = report_meta;
  options.shell = &shell;
  options.debug_sink = &debug_out;
  ScriptRunner runner(options, &vars, &rng);
  for (int tx = 0; tx < kTransactions; tx++) {
    runner.Start(script, 0);
    bool retried = tx != 1;  // retry once, in the second transaction
    for (int step = 0; step < kMaxSteps; step++) {
      StepKind k = runner.Advance();
      if (k == StepKind::kEndOfScript) break;
      if (k == StepKind::kError) {
        FUZZ_CHECK(!runner.error().ok());
        FUZZ_CHECK(!runner.AbortMessage(0).empty());
        break;
      }
      FUZZ_CHECK(runner.command_index() >= 0 &&
                 runner.command_index() < static_cast<int>(script.commands.size()));
      if (k == StepKind::kSql) {
        const Command& cmd = runner.command();
        FUZZ_CHECK(cmd.kind == CommandKind::kSql);
        if (mode == QueryMode::kSimple) {
          FUZZ_CHECK(runner.param_count() == 0);
        } else {
          FUZZ_CHECK(runner.param_count() == static_cast<int>(cmd.param_slots.size()));
        }
        StoreRows(runner);
        if (!retried) {
          retried = true;
          runner.RestartForRetry();
        }
      }
      FUZZ_CHECK(step + 1 < kMaxSteps);  // the runner must not loop
    }
  }
  if (debug_out.size() > (1u << 20)) debug_out.clear();
}

// One input, as LLVMFuzzerTestOneInput is given it.
int FuzzOne(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  // The first line also goes through the -b/-f "name@weight" parser.
  std::string_view first = text.substr(0, text.find('\n'));
  if (first.size() < 64) {
    auto w = ParseScriptWeight(first);
    if (w.ok()) FUZZ_CHECK(w->weight >= 0);
    (void)FindBuiltin(first);
  }

  auto names = std::make_shared<NameTable>();
  for (const char* n : {"client_id", "scale", "default_seed", "random_seed", "zero"}) {
    names->Intern(n);
  }
  pgrig::Result<Script> parsed = ParseScript(text, "fuzz.sql", *names);
  if (!parsed.ok()) {
    FUZZ_CHECK(!parsed.status().message().empty());
    return 0;
  }
  const Script& script = *parsed;
  CheckParsed(script, *names);
  const std::string listing = RenderScript(script);
  FUZZ_CHECK(!listing.empty());
  const BuiltinScript as_builtin{"fuzz", "fuzz.sql", text};
  FUZZ_CHECK(!ShowScriptText(as_builtin).empty());

  RunScript(script, names, QueryMode::kSimple, false);
  RunScript(script, names, QueryMode::kExtended, true);
  RunScript(script, names, QueryMode::kPrepared, false);
  return 0;
}

}  // namespace
}  // namespace pgrig::script

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return pgrig::script::FuzzOne(data, size);
}
