// Script: a parsed pgbench script (built-in or from -f), and how to get one.
//
// ParseScript() turns script text into a list of Commands exactly as pgbench's
// ParseScript() does: SQL commands end at an unquoted top-level ';' (psql's
// lexing rules: quotes, dollar quotes, comments, parentheses; "\;" puts a ';'
// into the command without ending it, making a compound query); a backslash
// starts a meta-command that ends at the end of the line (a backslash before
// the newline continues it).  \gset and \aset do not make commands of their
// own: they attach to the SQL command before them.  \if/\elif/\else/\endif
// nesting is checked here, before any run, and the branch targets are
// precomputed so the runner jumps without searching.
//
// Errors are InvalidArgument (pgbench exit status 1) with pgbench's text:
//   "<source>:<line>: <message>[ (<detail>)][ in command \"<cmd>\"]\n"
//   "<the line>\n" "<spaces>^ error found here"       (caret when known)
//
// A Script is immutable after parsing and shared read-only by all clients
// and threads; variable names are slots of the NameTable it was parsed with.
#ifndef PGRIG_SCRIPT_SCRIPT_H_
#define PGRIG_SCRIPT_SCRIPT_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "script/expr.h"
#include "script/prng.h"
#include "script/variables.h"

namespace pgrig::script {

// pgbench's -M.
enum class QueryMode { kSimple, kExtended, kPrepared };

// "simple", "extended", "prepared": pgbench's -M values, and a protocol's
// name in plans, cell ids and results.  ParseQueryMode takes exactly those.
const char* QueryModeName(QueryMode mode);
std::optional<QueryMode> ParseQueryMode(std::string_view name);

enum class CommandKind : uint8_t {
  kSql,
  kSet,
  kSetShell,
  kShell,
  kSleep,
  kIf,
  kElif,
  kElse,
  kEndif,
  kStartPipeline,
  kSyncPipeline,
  kEndPipeline,
};

// What happens to an SQL command's result rows.
enum class Capture : uint8_t {
  kNone,
  kGset,  // last result of the command must have exactly one row; store it
  kAset,  // every result's last row is stored; empty results are skipped
};

// Simple-mode text is rebuilt per execution from these pieces: literal text
// then (when slot >= 0) the string form of variable `slot`; an undefined
// variable is left in the text as ":name", as pgbench does.
struct SqlSegment {
  uint32_t literal_begin = 0;  // into Command::sql
  uint32_t literal_end = 0;
  int slot = -1;
};

// A \shell / \setshell word: literal text, or a variable (":name").
struct ShellWord {
  std::string text;  // literal (for "::x" this is ":x"), or ":name" for a variable
  int slot = -1;     // >= 0 for a variable
};

inline constexpr int kMaxSqlParams = 255;  // pgbench's MAX_ARGS - 1

struct Command {
  CommandKind kind = CommandKind::kSql;
  int line = 0;            // 1-based line where the command starts
  std::string first_line;  // its first line, trimmed: shown by -r and in errors

  // Meta-commands: the words as pgbench keeps them; argv[0] is the command
  // name without the backslash ("set", "sleep", ...).  For \set, \if and
  // \elif argv holds only the name (and the variable for \set).
  std::vector<std::string> argv;

  // --- SQL ---
  std::string sql;                   // the text as collected, ":var" intact (simple mode)
  std::string sql_params;            // the same with ":var" replaced by $1..$n
  std::vector<int> param_slots;      // slot of $k is param_slots[k-1]
  std::vector<SqlSegment> segments;  // for simple-mode substitution
  Capture capture = Capture::kNone;
  std::string capture_prefix;  // \gset / \aset prefix ("" when none)

  // --- \set, \if, \elif ---
  Expr expr;
  int target_slot = -1;  // \set and \setshell destination

  // --- \sleep: sleep_value literal, or variable sleep_slot; times the unit ---
  int64_t sleep_value = 0;
  int sleep_slot = -1;
  int64_t sleep_unit_us = 1000000;  // "s" (default), "ms" = 1000, "us" = 1

  // --- \shell, \setshell: the command words after the name/variable ---
  std::vector<ShellWord> shell_words;

  // --- conditionals (indices into Script::commands) ---
  int next_branch = -1;  // \if, \elif: the next \elif, \else or \endif
  int endif_index = -1;  // \if, \elif, \else: the matching \endif
};

struct Script {
  std::string desc;  // file name, or "<builtin: TPC-B (sort of)>"
  int weight = 1;
  std::vector<Command> commands;
};

// REQUIRES: `names` outlives nothing in particular — slots are copied into
// the Script; use the same NameTable for every script of a run.
// `source` is the name errors start with (the file name, or the builtin's
// desc); it becomes Script::desc.
Result<Script> ParseScript(std::string_view text, std::string_view source, NameTable& names);

// --- built-in scripts (-b) ---------------------------------------------------

struct BuiltinScript {
  std::string_view name;  // "tpcb-like", "simple-update", "select-only"
  std::string_view desc;  // "<builtin: TPC-B (sort of)>", ...
  std::string_view text;  // pgbench's exact script text
};

std::span<const BuiltinScript> BuiltinScripts();

// pgbench's findBuiltin(): `name` may be any prefix of exactly one builtin.
// Errors (InvalidArgument): 'no builtin script found for name "x"' or
// 'ambiguous builtin name: N builtin scripts found for prefix "x"'; pgbench
// then prints ListAvailableScripts() too.
Result<const BuiltinScript*> FindBuiltin(std::string_view name);

// "Available builtin scripts:\n" and one "%13s: %s\n" line per script, then
// an empty line (what pgbench prints for -b list and after a lookup error).
std::string ListAvailableScripts();

// What --show-script NAME prints (to stderr): "-- name: desc\n<text>\n".
std::string ShowScriptText(const BuiltinScript& script);

// "name@weight" / "file@weight" (pgbench's parseScriptWeight): splits at the
// last '@'; weight defaults to 1.  Errors: "invalid weight specification:
// @x", "weight specification out of range (0 .. 2147483647): N".
struct WeightedName {
  std::string name;
  int weight = 1;
};
Result<WeightedName> ParseScriptWeight(std::string_view spec);

// pgbench's chooseScript(): picks a script index by weight with the thread's
// choose stream.  Consumes no randomness when there is one script.
// REQUIRES: total_weight > 0 (pgbench rejects a total weight of 0).
int ChooseScript(Prng& choose_rng, std::span<const Script> scripts, int64_t total_weight);

// A readable listing of a parsed script, one command per line, as the
// -r report shows commands (first_line); for debugging and tests.
std::string RenderScript(const Script& script);

}  // namespace pgrig::script

#endif  // PGRIG_SCRIPT_SCRIPT_H_
