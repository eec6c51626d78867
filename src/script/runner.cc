#include "script/runner.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pgrig::script {

ScriptRunner::ScriptRunner(Options options, Variables* variables, Prng* rng)
    : options_(options), variables_(variables), rng_(rng) {
  ctx_.variables = variables_;
  ctx_.rng = rng_;
  ctx_.debug_sink = options_.debug_sink;
}

void ScriptRunner::Start(const Script& script, int script_index) {
  script_ = &script;
  script_index_ = script_index;
  ctx_.script_index = script_index;
  saved_rng_ = *rng_;
  next_ = 0;
  command_index_ = -1;
  in_pipeline_ = false;
  branch_pending_ = false;
}

void ScriptRunner::RestartForRetry() {
  *rng_ = saved_rng_;
  next_ = 0;
  command_index_ = -1;
  in_pipeline_ = false;
  branch_pending_ = false;
}

bool ScriptRunner::Fail(Status status, std::string_view command, std::string_view failure) {
  error_ = std::move(status);
  failure_command_.assign(command.data(), command.size());
  failure_ = failure;
  // pgbench logs the cause itself (pg_log_error) and then the abort line,
  // except where the abort line carries the whole story.
  if (failure_.empty() || error_.message() == failure_) {
    cause_.clear();
  } else {
    cause_ = error_.message();
  }
  return false;
}

std::string ScriptRunner::AbortMessage(int client_id) const {
  if (failure_.empty()) {
    return "client " + std::to_string(client_id) + " aborted: " + error_.message();
  }
  return "client " + std::to_string(client_id) + " aborted in command " +
         std::to_string(command_index_) + " (" + failure_command_ + ") of script " +
         std::to_string(script_index_) + "; " + std::string(failure_);
}

void ScriptRunner::BindSql(const Command& cmd) {
  if (options_.mode == QueryMode::kSimple) {
    sql_.clear();
    for (const SqlSegment& seg : cmd.segments) {
      sql_.append(cmd.sql, seg.literal_begin, seg.literal_end - seg.literal_begin);
      if (seg.slot < 0) continue;
      const std::string* v = variables_->GetString(seg.slot);
      if (v != nullptr) {
        sql_.append(*v);
      } else {  // pgbench leaves an unknown ":name" in the text
        sql_.push_back(':');
        sql_.append(variables_->names().Name(seg.slot));
      }
    }
    params_.clear();
    sql_view_ = sql_;
    return;
  }
  sql_view_ = cmd.sql_params;
  params_.resize(cmd.param_slots.size());
  for (size_t i = 0; i < cmd.param_slots.size(); i++) {
    const std::string* v = variables_->GetString(cmd.param_slots[i]);
    params_[i] = v != nullptr ? v->c_str() : nullptr;
  }
}

bool ScriptRunner::EvalCondition(const Command& cmd, bool* truth) {
  Value v;
  Status err;
  if (!EvaluateInto(cmd.expr, ctx_, &v, &err)) {
    return Fail(std::move(err), cmd.argv[0], "evaluation of meta-command failed");
  }
  *truth = ValueTruth(v);
  return true;
}

bool ScriptRunner::EvalSleep(const Command& cmd) {
  int64_t usec = cmd.sleep_value;
  if (cmd.sleep_slot >= 0) {
    const std::string* v = variables_->GetString(cmd.sleep_slot);
    const std::string& name = variables_->names().Name(cmd.sleep_slot);
    if (v == nullptr) {
      return Fail(InvalidArgument(cmd.argv[0] + ": undefined variable \"" + name + "\""), "sleep",
                  "execution of meta-command failed");
    }
    usec = std::atoi(v->c_str());
    if (usec == 0 && !std::isdigit(static_cast<unsigned char>((*v)[0]))) {
      return Fail(InvalidArgument(cmd.argv[0] + ": invalid sleep time \"" + *v +
                                  "\" for variable \"" + name + "\""),
                  "sleep", "execution of meta-command failed");
    }
  }
  // pgbench computes this in int and silently wraps; report it instead.
  if (__builtin_mul_overflow(usec, cmd.sleep_unit_us, &sleep_us_)) {
    return Fail(InvalidArgument(cmd.argv[0] + ": sleep time out of range: " + std::to_string(usec) +
                                " * " + std::to_string(cmd.sleep_unit_us) + " us"),
                "sleep", "execution of meta-command failed");
  }
  return true;
}

// pgbench runs \shell through system(): "/bin/sh -c" with our stdin, stdout
// and stderr, so the shell's own complaints show as they do for pgbench.  Any
// non-zero status (or a shell that could not start) fails.
bool SystemShell::Run(const std::string& command) const {
  return std::system(command.c_str()) == 0;
}

// \setshell: popen(), reading the first line as fgets() into pgbench's
// 64-byte buffer does (newline included); stderr passes through.
std::optional<std::string> SystemShell::FirstLine(const std::string& command,
                                                  bool* closed_ok) const {
  FILE* fp = ::popen(command.c_str(), "r");
  if (fp == nullptr) return std::nullopt;
  char line[64];
  if (std::fgets(line, sizeof line, fp) == nullptr) {
    ::pclose(fp);
    return std::nullopt;
  }
  *closed_ok = ::pclose(fp) >= 0;
  return std::string(line);
}

bool ScriptRunner::RunShell(const Command& cmd) {
  const bool assign = cmd.kind == CommandKind::kSetShell;
  const std::string_view what = assign ? "setshell" : "shell";
  const std::string& arg0 = cmd.shell_words[0].text;
  constexpr size_t kShellCommandSize = 256;
  std::string command;
  for (size_t i = 0; i < cmd.shell_words.size(); i++) {
    const ShellWord& w = cmd.shell_words[i];
    const std::string* arg = &w.text;
    if (w.slot >= 0) {
      arg = variables_->GetString(w.slot);
      if (arg == nullptr) {
        return Fail(InvalidArgument(arg0 + ": undefined variable \"" + w.text + "\""), what,
                    "execution of meta-command failed");
      }
    }
    if (command.size() + arg->size() + (i > 0 ? 1 : 0) >= kShellCommandSize - 1) {
      return Fail(InvalidArgument(arg0 + ": shell command is too long"), what,
                  "execution of meta-command failed");
    }
    if (i > 0) command.push_back(' ');
    command += *arg;
  }
  const Shell& shell = options_.shell != nullptr ? *options_.shell : system_shell_;
  if (!assign) {
    if (!shell.Run(command)) {
      return Fail(InvalidArgument(arg0 + ": could not launch shell command"), what,
                  "execution of meta-command failed");
    }
    return true;
  }
  bool closed_ok = true;
  std::optional<std::string> line = shell.FirstLine(command, &closed_ok);
  if (!line) {
    return Fail(InvalidArgument(arg0 + ": could not read result of shell command"), what,
                "execution of meta-command failed");
  }
  if (!closed_ok) {
    return Fail(InvalidArgument(arg0 + ": could not run shell command: " + std::strerror(errno)),
                what, "execution of meta-command failed");
  }
  const std::string res = *line;
  if (options_.trace) {
    // pgbench's debug line names the first two words of the command.
    options_.trace(/*per_client=*/false,
                   arg0 + ": shell parameter name: \"" +
                       (cmd.shell_words.size() > 1 ? cmd.shell_words[1].text : "(null)") +
                       "\", value: \"" + res + "\"");
  }
  char* end = nullptr;
  const long v = std::strtol(res.c_str(), &end, 10);
  while (*end != '\0' && std::isspace(static_cast<unsigned char>(*end))) end++;
  if (res.empty() || *end != '\0') {
    return Fail(
        InvalidArgument(arg0 + ": shell command must return an integer (not \"" + res + "\")"),
        what, "execution of meta-command failed");
  }
  const int slot = cmd.target_slot;
  const std::string& name = variables_->names().Name(slot);
  if (!variables_->IsDefined(slot) && !IsValidVariableName(name)) {
    return Fail(InvalidArgument("setshell: invalid variable name: \"" + name + "\""), what,
                "execution of meta-command failed");
  }
  variables_->Set(slot, Value::Int(static_cast<int>(v)));
  return true;
}

// pgbench -d's "executing \\<name> <args>": the words pgbench keeps for the
// command (for \\set and the branches only the name and variable).
void ScriptRunner::TraceMeta(const Command& cmd) {
  std::string line = "executing \\" + cmd.argv[0];
  for (size_t i = 1; i < cmd.argv.size(); ++i) line += " " + cmd.argv[i];
  options_.trace(/*per_client=*/true, line);
}

// Runs a meta-command that is not a branch, sleep or pipeline command.
bool ScriptRunner::RunMeta(const Command& cmd) {
  switch (cmd.kind) {
    case CommandKind::kSet: {
      Value v;
      Status err;
      if (!EvaluateInto(cmd.expr, ctx_, &v, &err)) {
        return Fail(std::move(err), cmd.argv[0], "evaluation of meta-command failed");
      }
      const int slot = cmd.target_slot;
      // pgbench validates a name only when it first creates the variable.
      if (!variables_->IsDefined(slot) && !IsValidVariableName(cmd.argv[1])) {
        return Fail(
            InvalidArgument(cmd.argv[0] + ": invalid variable name: \"" + cmd.argv[1] + "\""),
            "set", "assignment of meta-command failed");
      }
      variables_->Set(slot, v);
      return true;
    }
    case CommandKind::kShell:
    case CommandKind::kSetShell:
      return RunShell(cmd);
    default:
      return true;
  }
}

StepKind ScriptRunner::Advance() {
  const std::vector<Command>& cmds = script_->commands;
  while (true) {
    if (next_ >= static_cast<int>(cmds.size())) {
      command_index_ = static_cast<int>(cmds.size());
      if (in_pipeline_) {
        Fail(RuntimeError("end of script reached with pipeline open"), "", "");
        return StepKind::kError;
      }
      return StepKind::kEndOfScript;
    }
    const Command& cmd = cmds[static_cast<size_t>(next_)];
    command_index_ = next_;
    ctx_.command_index = next_;
    // pgbench traces the \\elif or \\else a false branch jumps to (it
    // executes them), but not the \\endif it jumps to (its skipping state
    // passes over that one); commands skipped over are never visited here.
    if (options_.trace && cmd.kind != CommandKind::kSql &&
        !(branch_pending_ && cmd.kind == CommandKind::kEndif)) {
      TraceMeta(cmd);
    }
    switch (cmd.kind) {
      case CommandKind::kSql:
        if (in_pipeline_ && cmd.capture != Capture::kNone) {
          const bool g = cmd.capture == Capture::kGset;
          Fail(RuntimeError(g ? "\\gset is not allowed in pipeline mode"
                              : "\\aset is not allowed in pipeline mode"),
               g ? "gset" : "aset",
               g ? "\\gset is not allowed in pipeline mode"
                 : "\\aset is not allowed in pipeline mode");
          return StepKind::kError;
        }
        BindSql(cmd);
        next_++;
        return StepKind::kSql;
      case CommandKind::kSleep:
        if (!EvalSleep(cmd)) return StepKind::kError;
        next_++;
        return StepKind::kSleep;
      case CommandKind::kSet:
      case CommandKind::kShell:
      case CommandKind::kSetShell:
        if (!RunMeta(cmd)) return StepKind::kError;
        next_++;
        break;
      case CommandKind::kIf: {
        bool truth = false;
        if (!EvalCondition(cmd, &truth)) return StepKind::kError;
        if (truth) {
          next_++;
        } else {
          next_ = cmd.next_branch;
          branch_pending_ = true;
        }
        break;
      }
      case CommandKind::kElif:
        if (!branch_pending_) {  // an earlier branch ran: skip to \endif
          next_ = cmd.endif_index + 1;
          break;
        } else {
          bool truth = false;
          if (!EvalCondition(cmd, &truth)) return StepKind::kError;
          if (truth) {
            branch_pending_ = false;
            next_++;
          } else {
            next_ = cmd.next_branch;
          }
        }
        break;
      case CommandKind::kElse:
        if (branch_pending_) {
          branch_pending_ = false;
          next_++;
        } else {
          next_ = cmd.endif_index + 1;
        }
        break;
      case CommandKind::kEndif:
        branch_pending_ = false;
        next_++;
        break;
      case CommandKind::kStartPipeline:
        if (options_.mode == QueryMode::kSimple) {
          Fail(RuntimeError("cannot use pipeline mode with the simple query protocol"),
               "startpipeline", "cannot use pipeline mode with the simple query protocol");
          return StepKind::kError;
        }
        if (in_pipeline_) {
          Fail(RuntimeError("already in pipeline mode"), "startpipeline",
               "already in pipeline mode");
          return StepKind::kError;
        }
        in_pipeline_ = true;
        next_++;
        return StepKind::kPipelineStart;
      case CommandKind::kSyncPipeline:
        if (!in_pipeline_) {
          Fail(RuntimeError("not in pipeline mode"), "syncpipeline", "not in pipeline mode");
          return StepKind::kError;
        }
        next_++;
        return StepKind::kPipelineSync;
      case CommandKind::kEndPipeline:
        if (!in_pipeline_) {
          Fail(RuntimeError("not in pipeline mode"), "endpipeline", "not in pipeline mode");
          return StepKind::kError;
        }
        in_pipeline_ = false;
        next_++;
        return StepKind::kPipelineEnd;
    }
    if (options_.report_meta_commands) return StepKind::kMetaDone;
  }
}

Status ScriptRunner::StoreRow(std::span<const std::string_view> names,
                              std::span<const std::string_view> values) {
  const Command& cmd = command();
  const char* context = cmd.capture == Capture::kAset ? "aset" : "gset";
  for (size_t i = 0; i < names.size() && i < values.size(); i++) {
    scratch_.assign(cmd.capture_prefix);
    scratch_.append(names[i]);
    if (Status st = variables_->SetStringByName(context, scratch_, values[i]); !st.ok()) {
      cause_ = st.message();  // pgbench logs the reason first
      return RuntimeError("error storing into variable " + scratch_);
    }
  }
  return Status::Ok();
}

}  // namespace pgrig::script
