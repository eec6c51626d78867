// ScriptRunner: runs one client's way through a Script, for the engine.
//
// The engine owns connections and time; the runner owns the script's logic.
// For each transaction the engine calls Start() with the chosen script, then
// Advance() repeatedly.  Advance() executes meta-commands itself — \set,
// \if/\elif/\else/\endif branching, \shell and \setshell (these block: they
// run system() and popen(), i.e. "/bin/sh -c", exactly as pgbench does, so
// the shell's complaints reach stderr as "sh: 1: ..." and the commands see
// pgrig's stdin, stdout and stderr) — and returns at each
// point where the engine must act:
//
//   kSql            send command `command_index`: sql() is the text to send
//                   (NUL-terminated; simple mode: variables substituted inline; extended and
//                   prepared: the $n text, with params()/param_count() bound
//                   from the variables; a param is nullptr (SQL NULL) when
//                   its variable is undefined, as in pgbench).  Then the
//                   engine reads the results; if command().capture is not
//                   kNone it hands rows back with StoreRow() (see below).
//   kSleep          wait sleep_us() microseconds (\sleep).
//   kMetaDone       only with Options::report_meta_commands: meta-command
//                   `command_index` just ran (for -r per-command latencies).
//   kPipelineStart / kPipelineSync / kPipelineEnd
//                   \startpipeline, \syncpipeline, \endpipeline; the runner
//                   has already checked pipeline state ("already in pipeline
//                   mode", "not in pipeline mode").
//   kEndOfScript    the transaction's script is done.
//   kError          the client must abort: error() is pgbench's message
//                   (e.g. "division by zero"), failure() its summary
//                   ("evaluation of meta-command failed"); AbortMessage()
//                   builds pgbench's "client N aborted in command ..." line,
//                   and cause() is the error line pgbench logs before it
//                   (empty when the abort line already says it all).
//
// \gset / \aset (pgbench's readCommandResponse): for a kGset command only the
// LAST result of a compound query is stored and it must have exactly one row
// (else the engine reports "expected one row, got N"; a command result with
// no tuples counts as 0 rows); for kAset every result with at least one row
// stores its last row, empty results are skipped.  For each stored row the
// engine calls StoreRow(names, values) (PQfname / PQgetvalue); when that
// fails, cause() holds what pgbench logs first ("gset: invalid variable
// name: ...").
//
// Retries (--max-tries): Start() saves the client's random state;
// RestartForRetry() restores it and rewinds, so a retried transaction draws
// the same random values, as in pgbench.
//
// Hot path: Advance() allocates nothing in steady state; the SQL text buffer
// and parameter vector are reused.  Pointers returned by sql()/params() stay
// valid until the next call to Advance(), Start() or a variable change.
//
// One ScriptRunner per client; not thread-safe.  It borrows the client's
// Variables and Prng, which must outlive it.
#ifndef PGRIG_SCRIPT_RUNNER_H_
#define PGRIG_SCRIPT_RUNNER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "script/expr.h"
#include "script/prng.h"
#include "script/script.h"
#include "script/variables.h"

namespace pgrig::script {

enum class StepKind : uint8_t {
  kSql,
  kSleep,
  kMetaDone,
  kPipelineStart,
  kPipelineSync,
  kPipelineEnd,
  kEndOfScript,
  kError,
};

// How \shell and \setshell reach a shell.  The default, SystemShell, is
// pgbench's system() and popen(); tests and the fuzzer substitute a fake so
// that no command from their input is ever executed.  Implementations must
// be usable from any thread (each worker's runners share one).
class Shell {
 public:
  virtual ~Shell() = default;
  // \shell: runs `command` with the process's stdin, stdout and stderr;
  // true when it started and exited with status 0.
  virtual bool Run(const std::string& command) const = 0;
  // \setshell: runs `command` with its stdout read and stderr passed
  // through; its first line as fgets() into a 64-byte buffer reads it
  // (newline included), or nullopt when nothing could be read.  Sets
  // *closed_ok to false when the command's status could not be collected.
  virtual std::optional<std::string> FirstLine(const std::string& command,
                                               bool* closed_ok) const = 0;
};

class SystemShell : public Shell {
 public:
  bool Run(const std::string& command) const override;
  std::optional<std::string> FirstLine(const std::string& command, bool* closed_ok) const override;
};

class ScriptRunner {
 public:
  struct Options {
    QueryMode mode = QueryMode::kSimple;
    // Return kMetaDone after each executed meta-command (for -r).
    bool report_meta_commands = false;
    // Runs \shell and \setshell; nullptr means a SystemShell.
    const Shell* shell = nullptr;
    // debug() output: nullptr means stderr.
    std::string* debug_sink = nullptr;
    // pgbench -d: called with pgbench's debug text for each meta-command the
    // runner executes, before running it (per_client: "executing \\set x",
    // "executing \\sleep 1 ms", for the caller to prefix with "client N ";
    // an \\endif only when reached by executing, not when jumped to)
    // and for each \\setshell result (not per_client: "echo: shell
    // parameter name: ...", as pgbench words it).  Empty: no tracing (one
    // test of an empty std::function per meta-command).
    std::function<void(bool per_client, const std::string& text)> trace;
  };

  // REQUIRES: variables and rng outlive the runner.
  ScriptRunner(Options options, Variables* variables, Prng* rng);

  // Begins a transaction of `script` (index `script_index` in the run's
  // script list, used by debug() and messages).  REQUIRES: script outlives
  // the transaction.
  void Start(const Script& script, int script_index);
  // Rewinds to the first command and restores the random state saved by
  // Start() (pgbench's retry).
  void RestartForRetry();

  // Runs until the engine must act; see the file comment.
  StepKind Advance();

  // --- the last step's details ---
  int command_index() const { return command_index_; }
  const Command& command() const { return script_->commands[static_cast<size_t>(command_index_)]; }
  std::string_view sql() const { return sql_view_; }
  const char* const* params() const { return params_.data(); }
  int param_count() const { return static_cast<int>(params_.size()); }
  int64_t sleep_us() const { return sleep_us_; }
  const Status& error() const { return error_; }
  std::string_view failure() const { return failure_; }
  // The command name pgbench reports for the failure ("set", "sleep", "gset").
  std::string_view failure_command() const { return failure_command_; }
  bool in_pipeline() const { return in_pipeline_; }

  // pgbench's commandFailed() text for the last kError:
  // "client <id> aborted in command <n> (<cmd>) of script <s>; <failure>".
  std::string AbortMessage(int client_id) const;
  // The line pgbench logs (at error level) before the abort line for the
  // last kError or failed StoreRow(): e.g. "division by zero", "malformed
  // variable ...", "gset: invalid variable name: ...".  Empty when pgbench
  // logs only the abort line (the pipeline errors, whose abort line names
  // the problem).
  std::string_view cause() const { return cause_; }

  // Stores one \gset/\aset row of the current SQL command: variable
  // prefix+names[i] = values[i] (as strings, parsed lazily).  Error text:
  // "error storing into variable <name>" (the engine adds the
  // "client N script S command C query Q: " prefix, as pgbench).
  Status StoreRow(std::span<const std::string_view> names,
                  std::span<const std::string_view> values);

 private:
  bool RunMeta(const Command& cmd);  // false on error (error_ set)
  bool Fail(Status status, std::string_view command, std::string_view failure);
  void BindSql(const Command& cmd);
  bool EvalCondition(const Command& cmd, bool* truth);
  bool RunShell(const Command& cmd);
  bool EvalSleep(const Command& cmd);
  void TraceMeta(const Command& cmd);

  Options options_;
  SystemShell system_shell_;
  Variables* variables_;
  Prng* rng_;
  Prng saved_rng_;
  const Script* script_ = nullptr;
  int script_index_ = 0;
  int next_ = 0;            // next command to run
  int command_index_ = -1;  // command of the last step
  bool in_pipeline_ = false;
  std::string sql_;
  std::string_view sql_view_;
  std::vector<const char*> params_;
  int64_t sleep_us_ = 0;
  Status error_;
  std::string_view failure_;
  std::string failure_command_;
  std::string cause_;
  std::string scratch_;
  bool branch_pending_ = false;  // jumped to a branch whose condition must be tried
  EvalContext ctx_;
};

}  // namespace pgrig::script

#endif  // PGRIG_SCRIPT_RUNNER_H_
