// ParsePerfScript (profile/perf_script.h).
#include "profile/perf_script.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>

#include "common/strings.h"

namespace pgrig::profile {
namespace {

// At most 120 bytes of a line, control bytes as '?', for error messages.
std::string Excerpt(std::string_view line) {
  std::string out(line.substr(0, 120));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return line.size() > 120 ? out + "..." : out;
}

bool ParseDecimal(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && out >= 0;
}

// "47812.401958840" -> nanoseconds; 1 to 9 fractional digits.
bool ParseSeconds(std::string_view s, int64_t& ns) {
  const size_t dot = s.find('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view whole = s.substr(0, dot);
  std::string_view frac = s.substr(dot + 1);
  if (frac.empty() || frac.size() > 9) return false;
  int64_t sec = 0;
  int64_t f = 0;
  if (!ParseDecimal(whole, sec) || !ParseDecimal(frac, f)) return false;
  if (sec > 9'000'000'000) return false;  // keeps sec * 1e9 inside int64
  for (size_t i = frac.size(); i < 9; ++i) f *= 10;
  ns = sec * 1'000'000'000 + f;
  return true;
}

// "  55d5c0a1b2c3 ExecScan (/usr/lib/.../postgres)" after the leading tab.
bool ParseFrame(std::string_view s, Frame& frame) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  const size_t addr_begin = i;
  while (i < s.size() && std::isxdigit(static_cast<unsigned char>(s[i])) != 0) ++i;
  if (i == addr_begin || i >= s.size() || s[i] != ' ') return false;
  ++i;
  std::string_view rest = s.substr(i);
  while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
  if (rest.empty() || rest.back() != ')') return false;
  const size_t open = rest.rfind(" (");
  if (open == std::string_view::npos) {
    // "(dso)" alone: no symbol at all.
    if (rest.front() != '(') return false;
    frame.symbol = "[unknown]";
    frame.dso = rest.substr(1, rest.size() - 2);
    return true;
  }
  frame.symbol = rest.substr(0, open);
  frame.dso = rest.substr(open + 2, rest.size() - open - 3);
  return !frame.symbol.empty();
}

// A pid or tid: decimal, or -1, which perf prints for one it does not know
// (seen under load: ":-1  2065/-1     2897.081822052:", a sample whose
// thread perf had no record of, named ":-1" after its tid).
bool ParseId(std::string_view v, int64_t& out) {
  if (v == "-1") {
    out = -1;
    return true;
  }
  return ParseDecimal(v, out) && out <= INT32_MAX;
}

bool ParseIds(std::string_view ids, Sample& s) {
  const size_t slash = ids.find('/');
  int64_t pid = 0;
  int64_t tid = 0;
  if (slash == std::string_view::npos || !ParseId(ids.substr(0, slash), pid) ||
      !ParseId(ids.substr(slash + 1), tid)) {
    return false;
  }
  s.pid = static_cast<int>(pid);
  s.tid = static_cast<int>(tid);
  return true;
}

// "postgres 14077/14077 47812.401958840:" (and maybe one frame after it).
// The header's end is the first ':' that follows "PID/TID SECONDS"; COMM is
// what comes before, and may hold spaces and colons itself.
bool ParseHeader(std::string_view line, Sample& s, std::string_view& inline_frame) {
  for (size_t colon = line.find(':'); colon != std::string_view::npos;
       colon = line.find(':', colon + 1)) {
    const std::string_view head = line.substr(0, colon);
    const size_t time_sp = head.rfind(' ');
    if (time_sp == std::string_view::npos || !ParseSeconds(head.substr(time_sp + 1), s.time_ns)) {
      continue;
    }
    std::string_view rest = head.substr(0, time_sp);
    while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
    const size_t ids_sp = rest.rfind(' ');
    if (ids_sp == std::string_view::npos || !ParseIds(rest.substr(ids_sp + 1), s)) continue;
    std::string_view comm = rest.substr(0, ids_sp);
    while (!comm.empty() && comm.front() == ' ') comm.remove_prefix(1);
    while (!comm.empty() && comm.back() == ' ') comm.remove_suffix(1);
    s.comm = comm;
    inline_frame = line.substr(colon + 1);
    return true;
  }
  return false;
}

// "PERF_RECORD_FORK(14000:14000):(13999:13999)" after the header's colon.
bool ParseTaskEvent(std::string_view s, TaskEvent& e) {
  if (s.starts_with("PERF_RECORD_FORK(")) {
    e.kind = TaskEvent::Kind::kFork;
    s.remove_prefix(17);
  } else if (s.starts_with("PERF_RECORD_EXIT(")) {
    e.kind = TaskEvent::Kind::kExit;
    s.remove_prefix(17);
  } else {
    return false;
  }
  const size_t close = s.find("):(");
  if (close == std::string_view::npos || s.empty() || s.back() != ')') return false;
  Sample ids;
  const std::string_view child = s.substr(0, close);
  const std::string_view parent = s.substr(close + 3, s.size() - close - 4);
  auto colon_to_slash = [](std::string_view v) {
    std::string out(v);
    for (char& c : out) c = c == ':' ? '/' : c;
    return out;
  };
  if (!ParseIds(colon_to_slash(child), ids)) return false;
  e.pid = ids.pid;
  e.tid = ids.tid;
  if (!ParseIds(colon_to_slash(parent), ids)) return false;
  e.parent_pid = ids.pid;
  return true;
}

}  // namespace

namespace {

// ParsePerfScript on text that starts after `lines_before` lines of a
// longer text (PerfScriptStream's runs of whole blocks).
Status ParsePerfScriptAt(std::string_view text, std::string_view source, size_t lines_before,
                         const std::function<void(const Sample&)>& on_sample,
                         const std::function<void(const TaskEvent&)>& on_task,
                         PerfScriptSkips* skips) {
  Sample s;
  bool in_sample = false;
  bool damaged = false;  // skipping the rest of a malformed record
  size_t line_no = lines_before;
  size_t pos = 0;
  std::string_view line;
  // A malformed line: the error, or (with `skips`) the record left out.
  auto malformed = [&](const char* what) -> bool {
    if (skips == nullptr) return true;
    if (!damaged) {
      if (skips->records++ == 0) {
        skips->first_line = line_no;
        skips->first_text = Excerpt(line);
        skips->first_what = what;
      }
    }
    damaged = true;
    in_sample = false;
    return false;
  };
  auto error = [&](const char* what) {
    return InvalidArgument(std::string(source) + ":" + std::to_string(line_no) + ": " + what +
                           " (the line: \"" + Excerpt(line) + "\")");
  };
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) {
      if (in_sample) on_sample(s);
      in_sample = false;
      damaged = false;
      continue;
    }
    if (line.front() == '\t' || line.front() == ' ') {
      if (damaged) continue;
      static constexpr char kOutside[] = "a frame line outside a sample";
      static constexpr char kFrame[] = "a frame must read ADDRESS SYMBOL (OBJECT)";
      if (!in_sample) {
        if (malformed(kOutside)) return error(kOutside);
        continue;
      }
      Frame f;
      if (!ParseFrame(line, f)) {
        if (malformed(kFrame)) return error(kFrame);
        continue;
      }
      s.frames.push_back(f);
      continue;
    }
    if (in_sample) on_sample(s);  // a header right after a sample: no blank line
    in_sample = false;
    s.frames.clear();
    std::string_view inline_frame;
    static constexpr char kHeader[] = "a sample header must read COMM PID/TID SECONDS:";
    if (!ParseHeader(line, s, inline_frame)) {
      if (malformed(kHeader)) return error(kHeader);
      continue;
    }
    damaged = false;
    const size_t event_at = inline_frame.find_first_not_of(' ');
    if (event_at != std::string_view::npos &&
        inline_frame.substr(event_at).starts_with("PERF_RECORD_")) {
      const std::string_view ev = Trim(inline_frame.substr(event_at));
      TaskEvent e;
      if (ParseTaskEvent(ev, e)) {
        e.time_ns = s.time_ns;
        if (on_task) on_task(e);
      } else if (ev.starts_with("PERF_RECORD_FORK") || ev.starts_with("PERF_RECORD_EXIT")) {
        static constexpr char kTask[] =
            "a task event must read PERF_RECORD_FORK(PID:TID):(PID:TID)";
        if (malformed(kTask)) return error(kTask);
        continue;
      }
      continue;  // not a sample; no frames follow
    }
    if (inline_frame.find_first_not_of(' ') != std::string_view::npos) {
      Frame f;
      static constexpr char kInline[] = "a frame must read ADDRESS SYMBOL (OBJECT)";
      if (!ParseFrame(inline_frame, f)) {
        if (malformed(kInline)) return error(kInline);
        continue;
      }
      s.frames.push_back(f);
    }
    in_sample = true;
  }
  if (in_sample) on_sample(s);
  return Status();
}

}  // namespace

Status ParsePerfScript(std::string_view text, std::string_view source,
                       const std::function<void(const Sample&)>& on_sample,
                       const std::function<void(const TaskEvent&)>& on_task,
                       PerfScriptSkips* skips) {
  return ParsePerfScriptAt(text, source, 0, on_sample, on_task, skips);
}

PerfScriptStream::PerfScriptStream(std::string source, std::function<void(const Sample&)> on_sample,
                                   std::function<void(const TaskEvent&)> on_task,
                                   PerfScriptSkips* skips)
    : source_(std::move(source)),
      on_sample_(std::move(on_sample)),
      on_task_(std::move(on_task)),
      skips_(skips) {}

void PerfScriptStream::Parse(std::string_view text) {
  if (text.empty() || !status_.ok()) return;
  status_ = ParsePerfScriptAt(text, source_, lines_done_, on_sample_, on_task_, skips_);
  lines_done_ += static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

void PerfScriptStream::Feed(std::string_view chunk) {
  bytes_ += static_cast<int64_t>(chunk.size());
  if (!status_.ok()) return;
  pending_.append(chunk);
  // Whole blocks end with a blank line; after it the parser is where it
  // starts, so the runs can be parsed apart.
  size_t cut = pending_.rfind("\n\n");
  if (cut != std::string::npos) {
    cut += 2;
  } else if (pending_.size() > kMaxPending) {
    cut = pending_.rfind('\n');
    if (cut == std::string::npos) {
      status_ = InvalidArgument(source_ + ":" + std::to_string(lines_done_ + 1) +
                                ": a line longer than " + std::to_string(kMaxPending) + " bytes");
      pending_.clear();
      return;
    }
    ++cut;
  } else {
    return;
  }
  Parse(std::string_view(pending_).substr(0, cut));
  pending_.erase(0, cut);
}

Status PerfScriptStream::Finish() {
  Parse(pending_);
  pending_.clear();
  return status_;
}

}  // namespace pgrig::profile
