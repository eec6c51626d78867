// ProfileBuilder (profile/profile.h).
#include "profile/profile.h"

#include <algorithm>
#include <climits>

namespace pgrig::profile {

std::string ObjectName(std::string_view dso) {
  if (dso.starts_with("[")) return std::string(dso);
  const size_t slash = dso.rfind('/');
  return std::string(slash == std::string_view::npos ? dso : dso.substr(slash + 1));
}

std::string FunctionKey(const Frame& frame) {
  std::string key = frame.resolved() ? std::string(frame.symbol) : "";
  if (key.empty()) {
    const std::string obj = ObjectName(frame.dso);
    key = obj.starts_with("[") ? obj : "[" + obj + "]";
  }
  for (char& c : key) {
    if (c == ';' || c == '\n' || c == '\r') c = '_';
  }
  return key;
}

void ProfileBuilder::AddTask(const TaskEvent& e) {
  if (o_.root_pid == 0) return;
  if (e.kind == TaskEvent::Kind::kFork) {
    if (server_.contains(e.parent_pid)) server_.insert(e.pid);
  } else if (e.pid == e.tid && e.pid != o_.root_pid) {
    server_.erase(e.pid);  // its PID may be reused by anything
  }
}

void ProfileBuilder::Add(const Sample& sample) {
  if (o_.root_pid != 0 && !server_.contains(sample.pid)) {
    ++p_.samples_other_processes;
    return;
  }
  if (sample.time_ns < o_.window_start_ns || sample.time_ns > o_.window_end_ns) {
    ++p_.samples_outside_window;
    return;
  }
  ++p_.samples;
  if (std::find(pids_.begin(), pids_.end(), sample.pid) == pids_.end()) {
    pids_.push_back(sample.pid);
  }
  const auto c = static_cast<size_t>(Classify(sample.frames));
  ++p_.category_samples[c];
  if (sample.frames.empty() || !sample.frames.front().resolved()) ++p_.unresolved_leaf_samples;
  p_.frames += static_cast<int64_t>(sample.frames.size());

  stack_keys_.clear();
  for (const Frame& f : sample.frames) {
    if (!f.resolved()) ++p_.unresolved_frames;
    stack_keys_.push_back(FunctionKey(f));
  }
  // Total: once per sample, however often a function recurs in the stack.
  for (size_t i = 0; i < stack_keys_.size(); ++i) {
    bool seen = false;
    for (size_t j = 0; j < i && !seen; ++j) seen = stack_keys_[j] == stack_keys_[i];
    if (seen) continue;
    auto [it, inserted] = functions_.try_emplace(stack_keys_[i]);
    if (inserted) {
      const Frame& f = sample.frames[i];
      it->second.object = ObjectName(f.dso);
      Category fc;
      if (CategoryOfFrame(f, fc)) it->second.category = fc;
    }
    ++it->second.total;
    if (i == 0) ++it->second.self;
  }
  std::string stack(sample.comm.empty() ? std::string_view("[unknown]") : sample.comm);
  for (auto it = stack_keys_.rbegin(); it != stack_keys_.rend(); ++it) {
    stack += ';';
    stack += *it;
  }
  for (char& ch : stack) {
    if (ch == '\n' || ch == '\r') ch = '_';
  }
  ++folded_[stack];
}

Profile ProfileBuilder::Finish() {
  p_.frequency_hz = o_.frequency_hz;
  if (o_.window_end_ns != INT64_MAX && o_.window_end_ns > o_.window_start_ns) {
    p_.window_s = static_cast<double>(o_.window_end_ns - o_.window_start_ns) / 1e9;
  }
  p_.processes = static_cast<int>(pids_.size());
  std::vector<FunctionShare> all;
  all.reserve(functions_.size());
  for (auto& [name, fc] : functions_) {
    if (fc.self == 0) continue;
    all.push_back({.function = name,
                   .object = fc.object,
                   .category = fc.category,
                   .self_samples = fc.self,
                   .total_samples = fc.total});
  }
  std::sort(all.begin(), all.end(), [](const FunctionShare& a, const FunctionShare& b) {
    if (a.self_samples != b.self_samples) return a.self_samples > b.self_samples;
    return a.function < b.function;
  });
  if (all.size() > o_.top_functions) all.resize(o_.top_functions);
  p_.top_functions = std::move(all);
  p_.folded.assign(folded_.begin(), folded_.end());
  return std::move(p_);
}

std::string FoldedPathFor(const std::string& result_path) {
  constexpr std::string_view kJson = ".json";
  if (result_path.size() > kJson.size() && result_path.ends_with(kJson)) {
    return result_path.substr(0, result_path.size() - kJson.size()) + ".folded";
  }
  return result_path + ".folded";
}

std::string Profile::FoldedText() const {
  std::string out;
  for (const auto& [stack, n] : folded) {
    out += stack;
    out += ' ';
    out += std::to_string(n);
    out += '\n';
  }
  return out;
}

}  // namespace pgrig::profile
