#include "script/script.h"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "common/enum_names.h"

namespace pgrig::script {
namespace {

bool IsBlank(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}
bool IsIdentStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
bool IsIdentCont(unsigned char c) { return IsIdentStart(c) || (c >= '0' && c <= '9') || c == '$'; }
bool IsVarStart(unsigned char c) { return IsIdentStart(c); }
bool IsVarChar(unsigned char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }

std::string Chomp(std::string_view s) {
  if (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return std::string(s);
}

// The pieces of pgbench's syntax_error() message.
Status SyntaxError(std::string_view source, int lineno, const std::string* line,
                   std::string_view command, std::string_view msg, std::string_view more,
                   int64_t column) {
  std::string m = std::string(source) + ":" + std::to_string(lineno) + ": " + std::string(msg);
  if (!more.empty()) m += " (" + std::string(more) + ")";
  if (column >= 0 && line == nullptr) m += " at column " + std::to_string(column + 1);
  if (!command.empty()) m += " in command \"" + std::string(command) + "\"";
  if (line != nullptr) {
    m += "\n" + *line;
    if (column >= 0)
      m += "\n" + std::string(static_cast<size_t>(column), ' ') + "^ error found here";
  }
  return InvalidArgument(m);
}

enum class ScanResult { kSemicolon, kBackslash, kEof };

class ScriptParser {
 public:
  ScriptParser(std::string_view text, std::string_view source, NameTable& names)
      : s_(text), source_(source), names_(names) {
    for (size_t i = 0; i < s_.size(); i++) {
      if (s_[i] == '\n') newlines_.push_back(i);
    }
  }

  Result<Script> Parse() {
    Script script;
    script.desc = std::string(source_);
    while (true) {
      std::string buf;
      const size_t sql_start = pos_;
      ScanResult r = ScanSql(&buf);
      if (Status st = AddSqlCommand(buf, sql_start, &script); !st.ok()) return st;
      if (r == ScanResult::kBackslash) {
        PGRIG_RETURN_IF_ERROR(ParseBackslash(&script));
      }
      if (r == ScanResult::kEof) break;
    }
    if (script.commands.empty()) {
      return InvalidArgument("empty command list for script \"" + std::string(source_) + "\"");
    }
    PGRIG_RETURN_IF_ERROR(CheckConditionals(&script));
    return script;
  }

 private:
  int LineOf(size_t pos) const {
    return 1 + static_cast<int>(std::lower_bound(newlines_.begin(), newlines_.end(), pos) -
                                newlines_.begin());
  }

  // Moves pos_ from an opening quote `q` past its closing one (a doubled quote
  // stands for itself), or to the end of the text when it is not closed.
  void SkipQuoted(char q, bool backslash_escapes) {
    pos_++;
    while (pos_ < s_.size()) {
      if (backslash_escapes && s_[pos_] == '\\' && pos_ + 1 < s_.size()) {
        pos_ += 2;
      } else if (s_[pos_] == q) {
        pos_++;
        if (pos_ >= s_.size() || s_[pos_] != q) return;
        pos_++;  // doubled quote
      } else {
        pos_++;
      }
    }
  }

  // psql's lexer, reduced to what decides where an SQL command ends: quotes,
  // dollar quotes, comments, parentheses, ';', "\;" / "\:" and backslashes.
  // Leading blanks and "--" comments are dropped, as psql does.
  ScanResult ScanSql(std::string* buf) {
    int paren = 0;
    std::string_view last_ident;
    while (pos_ < s_.size()) {
      const unsigned char c = static_cast<unsigned char>(s_[pos_]);
      const size_t start = pos_;
      if (IsBlank(c) || c == '\n') {
        pos_++;
        if (!buf->empty()) buf->push_back(static_cast<char>(c));
        last_ident = {};
        continue;
      }
      if (c == '-' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '-') {
        while (pos_ < s_.size() && s_[pos_] != '\n') pos_++;
        if (!buf->empty()) buf->append(s_.substr(start, pos_ - start));
        last_ident = {};
        continue;
      }
      if (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '*') {
        int depth = 0;
        while (pos_ < s_.size()) {
          if (s_.compare(pos_, 2, "/*") == 0) {
            depth++;
            pos_ += 2;
          } else if (s_.compare(pos_, 2, "*/") == 0) {
            pos_ += 2;
            if (--depth == 0) break;
          } else {
            pos_++;
          }
        }
        buf->append(s_.substr(start, pos_ - start));
        last_ident = {};
        continue;
      }
      if (c == '\'' || c == '"') {
        // E'...' strings take backslash escapes; identifiers never do.
        SkipQuoted(static_cast<char>(c), c == '\'' && (last_ident == "e" || last_ident == "E"));
        buf->append(s_.substr(start, pos_ - start));
        last_ident = {};
        continue;
      }
      if (c == '$') {
        size_t e = pos_ + 1;
        if (e < s_.size() && IsIdentStart(static_cast<unsigned char>(s_[e]))) {
          while (e < s_.size() && IsVarChar(static_cast<unsigned char>(s_[e]))) e++;
        }
        if (e < s_.size() && s_[e] == '$') {
          const std::string_view tag = s_.substr(pos_, e + 1 - pos_);
          size_t close = s_.find(tag, e + 1);
          pos_ = close == std::string_view::npos ? s_.size() : close + tag.size();
          buf->append(s_.substr(start, pos_ - start));
          last_ident = {};
          continue;
        }
        pos_++;
        buf->push_back('$');
        last_ident = {};
        continue;
      }
      if (IsIdentStart(c)) {
        size_t e = pos_ + 1;
        while (e < s_.size() && IsIdentCont(static_cast<unsigned char>(s_[e]))) e++;
        last_ident = s_.substr(pos_, e - pos_);
        buf->append(last_ident);
        pos_ = e;
        continue;
      }
      last_ident = {};
      if (c == '\\') {
        if (pos_ + 1 < s_.size() && (s_[pos_ + 1] == ';' || s_[pos_ + 1] == ':')) {
          buf->push_back(s_[pos_ + 1]);
          pos_ += 2;
          continue;
        }
        pos_++;  // the backslash command starts after it
        return ScanResult::kBackslash;
      }
      pos_++;
      buf->push_back(static_cast<char>(c));
      if (c == '(') {
        paren++;
      } else if (c == ')' && paren > 0) {
        paren--;
      } else if (c == ';' && paren == 0) {
        return ScanResult::kSemicolon;
      }
    }
    return ScanResult::kEof;
  }

  Status AddSqlCommand(const std::string& buf, size_t sql_start, Script* script) {
    // pgbench's skip_sql_comments(): blanks and "--" comments only.
    size_t p = 0;
    while (p < buf.size()) {
      if (std::isspace(static_cast<unsigned char>(buf[p]))) {
        p++;
      } else if (buf.compare(p, 2, "--") == 0) {
        size_t nl = buf.find('\n', p);
        if (nl == std::string::npos) return Status::Ok();
        p = nl + 1;
      } else {
        break;
      }
    }
    if (p >= buf.size()) return Status::Ok();
    Command cmd;
    cmd.kind = CommandKind::kSql;
    cmd.sql = buf.substr(p);
    // The line of the first non-blank character of the command.
    size_t at = sql_start;
    while (at < s_.size() && std::isspace(static_cast<unsigned char>(s_[at]))) at++;
    cmd.line = LineOf(at);
    std::string first = cmd.sql.substr(0, 127);
    first = first.substr(0, first.find_first_of("\n\r"));
    cmd.first_line = first;
    PGRIG_RETURN_IF_ERROR(SplitParams(&cmd));
    script->commands.push_back(std::move(cmd));
    return Status::Ok();
  }

  // pgbench's parseQuery() (":name" -> $n) and the segments for simple mode.
  Status SplitParams(Command* cmd) {
    const std::string& sql = cmd->sql;
    size_t lit_begin = 0;
    size_t p = 0;
    while ((p = sql.find(':', p)) != std::string::npos) {
      if (p + 1 >= sql.size() || !IsVarStart(static_cast<unsigned char>(sql[p + 1]))) {
        while (p < sql.size() && sql[p] == ':') p++;
        continue;
      }
      size_t e = p + 1;
      while (e < sql.size() && IsVarChar(static_cast<unsigned char>(sql[e]))) e++;
      if (cmd->param_slots.size() >= static_cast<size_t>(kMaxSqlParams)) {
        return InvalidArgument("statement has too many arguments (maximum is " +
                               std::to_string(kMaxSqlParams) + "): " + sql);
      }
      const int slot = names_.Intern(std::string_view(sql).substr(p + 1, e - p - 1));
      cmd->segments.push_back(
          SqlSegment{static_cast<uint32_t>(lit_begin), static_cast<uint32_t>(p), slot});
      cmd->sql_params.append(sql, lit_begin, p - lit_begin);
      cmd->param_slots.push_back(slot);
      cmd->sql_params += "$" + std::to_string(cmd->param_slots.size());
      lit_begin = e;
      p = e;
    }
    cmd->segments.push_back(
        SqlSegment{static_cast<uint32_t>(lit_begin), static_cast<uint32_t>(sql.size()), -1});
    cmd->sql_params.append(sql, lit_begin, std::string::npos);
    return Status::Ok();
  }

  // Skips blanks and continuation lines; true if a word follows on this
  // command line (then *word and *offset are set).  At end of line, consumes
  // the newline and returns false.
  bool ReadWord(std::string* word, size_t* offset) {
    while (pos_ < s_.size()) {
      const unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (IsBlank(c)) {
        pos_++;
      } else if (c == '\\' && s_.compare(pos_, 2, "\\\n") == 0) {
        pos_ += 2;
      } else if (c == '\\' && s_.compare(pos_, 3, "\\\r\n") == 0) {
        pos_ += 3;
      } else if (c == '\n') {
        pos_++;
        return false;
      } else {
        break;
      }
    }
    if (pos_ >= s_.size()) return false;
    const size_t b = pos_;
    // A continuation ends the word too: a line "\setshell var\" followed by
    // "echo 5" names the variable "var", as in pgbench's lexer.
    while (pos_ < s_.size() && !IsBlank(static_cast<unsigned char>(s_[pos_])) && s_[pos_] != '\n' &&
           s_.compare(pos_, 2, "\\\n") != 0 && s_.compare(pos_, 3, "\\\r\n") != 0) {
      pos_++;
    }
    *word = std::string(s_.substr(b, pos_ - b));
    *offset = b;
    return true;
  }

  // End of a logical line for an expression: the first newline not escaped
  // by a continuation backslash.  Returns the index just after it.
  size_t ExpressionEnd(size_t from) const {
    size_t p = from;
    while (p < s_.size()) {
      if (s_[p] == '\n') {
        size_t q = p;
        if (q > from && s_[q - 1] == '\r') q--;
        if (q > from && s_[q - 1] == '\\') {
          p++;
          continue;
        }
        return p + 1;
      }
      p++;
    }
    return s_.size();
  }

  static std::optional<CommandKind> MetaKind(std::string_view name, bool* is_gset, bool* is_aset) {
    struct M {
      const char* n;
      CommandKind k;
    };
    static constexpr M kMeta[] = {
        {"set", CommandKind::kSet},
        {"setshell", CommandKind::kSetShell},
        {"shell", CommandKind::kShell},
        {"sleep", CommandKind::kSleep},
        {"if", CommandKind::kIf},
        {"elif", CommandKind::kElif},
        {"else", CommandKind::kElse},
        {"endif", CommandKind::kEndif},
        {"startpipeline", CommandKind::kStartPipeline},
        {"syncpipeline", CommandKind::kSyncPipeline},
        {"endpipeline", CommandKind::kEndPipeline},
    };
    auto eq = [&](const char* n) {
      return name.size() == std::strlen(n) && strncasecmp(name.data(), n, name.size()) == 0;
    };
    *is_gset = eq("gset");
    *is_aset = eq("aset");
    for (const M& m : kMeta) {
      if (eq(m.n)) return m.k;
    }
    return std::nullopt;
  }

  Status ParseBackslash(Script* script) {
    const size_t start = pos_ - 1;  // the backslash
    const int lineno = LineOf(start);
    std::string word;
    size_t word_offset = 0;
    if (!ReadWord(&word, &word_offset)) return Status::Ok();  // a lone backslash
    Command cmd;
    cmd.line = lineno;
    cmd.argv.push_back(word);
    bool is_gset = false, is_aset = false;
    std::optional<CommandKind> kind = MetaKind(word, &is_gset, &is_aset);
    const std::string name = word;

    if (kind &&
        (*kind == CommandKind::kSet || *kind == CommandKind::kIf || *kind == CommandKind::kElif)) {
      cmd.kind = *kind;
      if (*kind == CommandKind::kSet) {
        // Stay on this line: a missing variable is "missing argument".
        size_t save = pos_;
        if (!ReadWord(&word, &word_offset)) {
          (void)save;
          return SyntaxError(source_, lineno, nullptr, name, "missing argument", "", -1);
        }
        cmd.argv.push_back(word);
        cmd.target_slot = names_.Intern(word);
      }
      // Blanks and continuations between the variable and the expression.
      while (pos_ < s_.size()) {
        if (IsBlank(static_cast<unsigned char>(s_[pos_]))) {
          pos_++;
        } else if (s_.compare(pos_, 2, "\\\n") == 0) {
          pos_ += 2;
        } else if (s_.compare(pos_, 3, "\\\r\n") == 0) {
          pos_ += 3;
        } else {
          break;
        }
      }
      const size_t expr_begin = pos_;
      const size_t end = ExpressionEnd(expr_begin);
      ExprSyntaxError err;
      const std::string full_line = Chomp(s_.substr(start, end - start));
      if (!ParseExpression(s_.substr(expr_begin, end - expr_begin), names_, &cmd.expr, &err)) {
        const int64_t column = static_cast<int64_t>(expr_begin - start) + err.offset;
        return SyntaxError(source_, lineno, &full_line, name, err.message, err.detail,
                           std::max<int64_t>(column, 0));
      }
      pos_ = end;
      cmd.first_line = full_line;
      script->commands.push_back(std::move(cmd));
      return Status::Ok();
    }

    std::vector<size_t> offsets{word_offset};
    while (ReadWord(&word, &word_offset)) {
      if (cmd.argv.size() >= 256) {
        return SyntaxError(source_, lineno, nullptr, name, "too many arguments", "", -1);
      }
      cmd.argv.push_back(word);
      offsets.push_back(word_offset);
    }
    cmd.first_line = Chomp(s_.substr(start, pos_ - start));
    const std::string* line = &cmd.first_line;
    const size_t argc = cmd.argv.size();

    if (is_gset || is_aset) {
      if (argc > 2) return SyntaxError(source_, lineno, line, name, "too many arguments", "", -1);
      if (script->commands.empty()) {
        return SyntaxError(source_, lineno, nullptr, "", "\\gset must follow an SQL command", "",
                           -1);
      }
      Command& prev = script->commands.back();
      if (prev.kind != CommandKind::kSql || prev.capture != Capture::kNone) {
        return SyntaxError(source_, lineno, nullptr, "", "\\gset must follow an SQL command",
                           prev.kind == CommandKind::kSql ? "" : prev.first_line, -1);
      }
      prev.capture = is_gset ? Capture::kGset : Capture::kAset;
      prev.capture_prefix = argc > 1 ? cmd.argv[1] : "";
      return Status::Ok();
    }
    if (!kind) return SyntaxError(source_, lineno, line, name, "invalid command", "", -1);
    cmd.kind = *kind;
    switch (*kind) {
      case CommandKind::kSleep: {
        if (argc < 2) return SyntaxError(source_, lineno, line, name, "missing argument", "", -1);
        if (argc > 3) {
          return SyntaxError(source_, lineno, line, name, "too many arguments", "",
                             static_cast<int64_t>(offsets[3] - start));
        }
        std::string amount = cmd.argv[1];
        std::string unit = argc == 3 ? cmd.argv[2] : "";
        size_t unit_offset = argc == 3 ? offsets[2] : 0;
        if (amount[0] == ':') {
          cmd.sleep_slot = names_.Intern(std::string_view(amount).substr(1));
        } else {
          size_t i = 0;
          if (amount[i] == '+' || amount[i] == '-') i++;
          const bool have_digit =
              i < amount.size() && std::isdigit(static_cast<unsigned char>(amount[i]));
          while (i < amount.size() && std::isdigit(static_cast<unsigned char>(amount[i]))) i++;
          if (i < amount.size()) {
            if (argc == 2 && have_digit) {
              unit = amount.substr(i);  // "\sleep 10ms"
              unit_offset = offsets[1] + i;
              cmd.argv.push_back(unit);
            } else {
              return SyntaxError(source_, lineno, line, name,
                                 "invalid sleep time, must be an integer", cmd.argv[1],
                                 static_cast<int64_t>(offsets[1] - start));
            }
          }
          cmd.sleep_value = std::strtol(amount.c_str(), nullptr, 10);  // atoi semantics
        }
        if (!unit.empty() || cmd.argv.size() == 3) {
          if (strcasecmp(unit.c_str(), "us") == 0) {
            cmd.sleep_unit_us = 1;
          } else if (strcasecmp(unit.c_str(), "ms") == 0) {
            cmd.sleep_unit_us = 1000;
          } else if (strcasecmp(unit.c_str(), "s") == 0) {
            cmd.sleep_unit_us = 1000000;
          } else {
            return SyntaxError(source_, lineno, line, name,
                               "unrecognized time unit, must be us, ms or s", unit,
                               static_cast<int64_t>(unit_offset - start));
          }
        }
        break;
      }
      case CommandKind::kSetShell:
        if (argc < 3) return SyntaxError(source_, lineno, line, name, "missing argument", "", -1);
        cmd.target_slot = names_.Intern(cmd.argv[1]);
        AddShellWords(&cmd, 2);
        break;
      case CommandKind::kShell:
        if (argc < 2) return SyntaxError(source_, lineno, line, name, "missing command", "", -1);
        AddShellWords(&cmd, 1);
        break;
      default:  // else, endif, pipeline commands take no argument
        if (argc != 1)
          return SyntaxError(source_, lineno, line, name, "unexpected argument", "", -1);
        break;
    }
    script->commands.push_back(std::move(cmd));
    return Status::Ok();
  }

  void AddShellWords(Command* cmd, size_t from) {
    for (size_t i = from; i < cmd->argv.size(); i++) {
      const std::string& w = cmd->argv[i];
      ShellWord sw;
      if (w[0] != ':') {
        sw.text = w;
      } else if (w.size() > 1 && w[1] == ':') {
        sw.text = w.substr(1);
      } else {
        sw.text = w;
        sw.slot = names_.Intern(std::string_view(w).substr(1));
      }
      cmd->shell_words.push_back(std::move(sw));
    }
  }

  Status CheckConditionals(Script* script) {
    struct Open {
      int if_index;
      int last_branch;
      bool seen_else;
    };
    std::vector<Open> stack;
    auto fail = [&](size_t i, const char* msg) {
      return InvalidArgument("condition error in script \"" + script->desc + "\" command " +
                             std::to_string(i + 1) + ": " + msg);
    };
    for (size_t i = 0; i < script->commands.size(); i++) {
      Command& c = script->commands[i];
      const int idx = static_cast<int>(i);
      switch (c.kind) {
        case CommandKind::kIf:
          stack.push_back(Open{idx, idx, false});
          break;
        case CommandKind::kElif:
          if (stack.empty()) return fail(i, "\\elif without matching \\if");
          if (stack.back().seen_else) return fail(i, "\\elif after \\else");
          script->commands[static_cast<size_t>(stack.back().last_branch)].next_branch = idx;
          stack.back().last_branch = idx;
          break;
        case CommandKind::kElse:
          if (stack.empty()) return fail(i, "\\else without matching \\if");
          if (stack.back().seen_else) return fail(i, "\\else after \\else");
          script->commands[static_cast<size_t>(stack.back().last_branch)].next_branch = idx;
          stack.back().last_branch = idx;
          stack.back().seen_else = true;
          break;
        case CommandKind::kEndif: {
          if (stack.empty()) return fail(i, "\\endif without matching \\if");
          Open o = stack.back();
          stack.pop_back();
          Command& last = script->commands[static_cast<size_t>(o.last_branch)];
          if (last.kind != CommandKind::kElse) last.next_branch = idx;
          // Every branch head of this \if learns where the \endif is.
          for (int b = o.if_index; b >= 0 && b < idx;) {
            Command& head = script->commands[static_cast<size_t>(b)];
            head.endif_index = idx;
            if (head.kind == CommandKind::kElse) break;
            b = head.next_branch;
            if (b == idx) break;
          }
          break;
        }
        default:
          break;
      }
    }
    if (!stack.empty()) return fail(script->commands.size(), "\\if without matching \\endif");
    return Status::Ok();
  }

  std::string_view s_;
  std::string_view source_;
  NameTable& names_;
  size_t pos_ = 0;
  std::vector<size_t> newlines_;
};

constexpr std::string_view kTpcbLike =
    "\\set aid random(1, 100000 * :scale)\n"
    "\\set bid random(1, 1 * :scale)\n"
    "\\set tid random(1, 10 * :scale)\n"
    "\\set delta random(-5000, 5000)\n"
    "BEGIN;\n"
    "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n"
    "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
    "UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;\n"
    "UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;\n"
    "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, "
    "CURRENT_TIMESTAMP);\n"
    "END;\n";

constexpr std::string_view kSimpleUpdate =
    "\\set aid random(1, 100000 * :scale)\n"
    "\\set bid random(1, 1 * :scale)\n"
    "\\set tid random(1, 10 * :scale)\n"
    "\\set delta random(-5000, 5000)\n"
    "BEGIN;\n"
    "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n"
    "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
    "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, "
    "CURRENT_TIMESTAMP);\n"
    "END;\n";

constexpr std::string_view kSelectOnly =
    "\\set aid random(1, 100000 * :scale)\n"
    "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n";

constexpr BuiltinScript kBuiltins[] = {
    {"tpcb-like", "<builtin: TPC-B (sort of)>", kTpcbLike},
    {"simple-update", "<builtin: simple update>", kSimpleUpdate},
    {"select-only", "<builtin: select only>", kSelectOnly},
};

}  // namespace

Result<Script> ParseScript(std::string_view text, std::string_view source, NameTable& names) {
  ScriptParser parser(text, source, names);
  return parser.Parse();
}

std::span<const BuiltinScript> BuiltinScripts() { return kBuiltins; }

Result<const BuiltinScript*> FindBuiltin(std::string_view name) {
  const BuiltinScript* found = nullptr;
  int count = 0;
  for (const BuiltinScript& b : kBuiltins) {
    if (b.name.substr(0, name.size()) == name) {
      found = &b;
      count++;
    }
  }
  if (count == 1) return found;
  if (count == 0) {
    return InvalidArgument("no builtin script found for name \"" + std::string(name) + "\"");
  }
  return InvalidArgument("ambiguous builtin name: " + std::to_string(count) +
                         " builtin scripts found for prefix \"" + std::string(name) + "\"");
}

std::string ListAvailableScripts() {
  std::string out = "Available builtin scripts:\n";
  for (const BuiltinScript& b : kBuiltins) {
    char buf[128];
    std::snprintf(buf, sizeof(buf), "  %13.*s: %.*s\n", static_cast<int>(b.name.size()),
                  b.name.data(), static_cast<int>(b.desc.size()), b.desc.data());
    out += buf;
  }
  out += "\n";
  return out;
}

std::string ShowScriptText(const BuiltinScript& script) {
  return "-- " + std::string(script.name) + ": " + std::string(script.desc) + "\n" +
         std::string(script.text) + "\n";
}

Result<WeightedName> ParseScriptWeight(std::string_view spec) {
  WeightedName out;
  const size_t at = spec.rfind('@');
  if (at == std::string_view::npos) {
    out.name = std::string(spec);
    return out;
  }
  out.name = std::string(spec.substr(0, at));
  const std::string w(spec.substr(at + 1));
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(w.c_str(), &end, 10);
  if (errno != 0 || end == w.c_str() || *end != '\0') {
    return InvalidArgument("invalid weight specification: " + std::string(spec.substr(at)));
  }
  if (v > INT_MAX || v < 0) {
    return InvalidArgument("weight specification out of range (0 .. " + std::to_string(INT_MAX) +
                           "): " + std::to_string(v));
  }
  out.weight = static_cast<int>(v);
  return out;
}

int ChooseScript(Prng& choose_rng, std::span<const Script> scripts, int64_t total_weight) {
  if (scripts.size() == 1) return 0;
  int64_t w = RandomUniform(choose_rng, 0, total_weight - 1);
  size_t i = 0;
  do {
    w -= scripts[i++].weight;
  } while (w >= 0);
  return static_cast<int>(i) - 1;
}

std::string RenderScript(const Script& script) {
  std::string out;
  for (const Command& c : script.commands) {
    out += c.first_line;
    if (c.kind == CommandKind::kSql && c.capture != Capture::kNone) {
      out += c.capture == Capture::kGset ? " \\gset" : " \\aset";
      if (!c.capture_prefix.empty()) out += " " + c.capture_prefix;
    }
    out += "\n";
  }
  return out;
}

constexpr const char* kQueryModeNames[] = {"simple", "extended", "prepared"};

const char* QueryModeName(QueryMode mode) {
  return NameAt<QueryMode::kPrepared>(mode, kQueryModeNames, "simple");
}

std::optional<QueryMode> ParseQueryMode(std::string_view name) {
  return ValueAt<QueryMode::kPrepared>(name, kQueryModeNames);
}

}  // namespace pgrig::script
