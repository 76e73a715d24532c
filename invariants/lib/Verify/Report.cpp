//===- Report.cpp - findings as text for people and JSON for the agent --===//

#include "argus/Verify/Finding.h"
#include "argus/Verify/Verifier.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace argus::verify {

namespace {

struct CheckNameEntry {
  CheckKind kind;
  const char *name;
};
constexpr CheckNameEntry kCheckNames[] = {
    {CheckKind::TagAssertion, "tag-assertion"},
    {CheckKind::UninitializedRead, "uninitialized-read"},
    {CheckKind::OutOfBounds, "out-of-bounds"},
    {CheckKind::Race, "race"},
    {CheckKind::AsyncRace, "async-race"},
    {CheckKind::DoubleWrite, "double-write"},
    {CheckKind::UnwrittenOutput, "unwritten-output"},
    {CheckKind::BankConflict, "bank-conflict"},
    {CheckKind::DivergentBarrier, "divergent-barrier"},
    {CheckKind::Unsupported, "unsupported"},
};

const char *replayName(Replay::Status s) {
  switch (s) {
  case Replay::Status::NotRun: return "not-run";
  case Replay::Status::Confirmed: return "confirmed";
  case Replay::Status::NotConfirmed: return "not-confirmed";
  case Replay::Status::Failed: return "failed";
  }
  return "";
}

std::string joinInts(const std::vector<int64_t> &xs) {
  std::string s;
  for (size_t i = 0; i < xs.size(); ++i)
    s += (i ? ", " : "") + std::to_string(xs[i]);
  return s;
}

nlohmann::json accessJson(const Access &a) {
  nlohmann::json iterations = nlohmann::json::object();
  for (auto &[name, v] : a.point.iterations)
    iterations[name] = v;
  return {{"block", a.block},   {"thread", a.thread},       {"warp", a.warp},
          {"lane", a.lane},     {"location", a.point.location}, {"op", a.point.op},
          {"iterations", iterations}, {"target", a.target}, {"slot", a.slot},
          {"element", a.element}, {"write", a.write},       {"async", a.async}};
}

nlohmann::json findingJson(const Finding &f) {
  nlohmann::json accesses = nlohmann::json::array();
  for (const Access &a : f.accesses)
    accesses.push_back(accessJson(a));
  nlohmann::json sizes = nlohmann::json::object();
  for (auto &[name, v] : f.sizes)
    sizes[name] = v;
  nlohmann::json tags = nlohmann::json::array();
  for (const TagValue &t : f.actualTags) {
    nlohmann::json fields = nlohmann::json::object();
    for (auto &[name, v] : t.fields)
      fields[name] = v;
    const char *state[] = {"unwritten", "tagged", "untagged", "unknown"};
    tags.push_back({{"state", state[static_cast<int>(t.state)]},
                    {"origin", t.origin},
                    {"fields", fields}});
  }
  return {{"check", checkName(f.kind)},
          {"severity", f.severity == Severity::Error ? "error" : "warning"},
          {"message", f.message},
          {"accesses", accesses},
          {"sizes", sizes},
          {"tags", tags},
          {"expected", f.expected},
          {"replay", {{"status", replayName(f.replay.status)}, {"detail", f.replay.detail}}}};
}

} // namespace

std::string sourceLineAt(const std::string &location) {
  size_t c2 = location.rfind(':');
  if (c2 == std::string::npos)
    return "";
  size_t c1 = location.rfind(':', c2 - 1);
  if (c1 == std::string::npos)
    return "";
  std::ifstream in(location.substr(0, c1));
  int line = std::atoi(location.substr(c1 + 1, c2 - c1 - 1).c_str());
  std::string text;
  for (int i = 0; i < line && std::getline(in, text); ++i) {
  }
  if (!in)
    return "";
  size_t b = text.find_first_not_of(" \t");
  return b == std::string::npos ? "" : text.substr(b);
}

const char *checkName(CheckKind kind) {
  for (const CheckNameEntry &e : kCheckNames)
    if (e.kind == kind)
      return e.name;
  return "unknown";
}

std::optional<CheckKind> checkFromName(const std::string &name) {
  for (const CheckNameEntry &e : kCheckNames)
    if (name == e.name)
      return e.kind;
  return std::nullopt;
}

std::string formatTag(const TagValue &tag) {
  switch (tag.state) {
  case TagValue::State::Unwritten: return "⊥ (unwritten)";
  case TagValue::State::Untagged: return "untagged";
  case TagValue::State::Unknown: return "⊤ (unknown)";
  case TagValue::State::Tagged: break;
  }
  std::string s = tag.origin + "(";
  for (size_t i = 0; i < tag.fields.size(); ++i)
    s += (i ? ", " : "") + tag.fields[i].first + "=" + std::to_string(tag.fields[i].second);
  return s + ")";
}

std::string formatFinding(const Finding &f) {
  std::ostringstream os;
  std::string where = f.accesses.empty() ? "" : f.accesses.front().point.location;
  os << where << ": " << (f.severity == Severity::Error ? "error" : "warning") << ": ["
     << checkName(f.kind) << "] " << f.message << "\n";
  std::string line = sourceLineAt(where);
  if (!line.empty())
    os << "    " << line << "\n";
  for (size_t i = 0; i < f.accesses.size(); ++i) {
    const Access &a = f.accesses[i];
    os << "  " << (f.accesses.size() > 1 ? "access " + std::to_string(i + 1) : "at") << ": ";
    if (!a.block.empty())
      os << "block (" << joinInts(a.block) << ") thread " << a.thread << " (warp " << a.warp
         << ", lane " << a.lane << ") ";
    if (!a.target.empty())
      os << (a.write ? (a.async ? "async-writes " : "writes ") : "reads ") << a.target;
    if (!a.slot.empty())
      os << " slot [" << joinInts(a.slot) << "]";
    if (!a.element.empty())
      os << " element (" << joinInts(a.element) << ")";
    os << "\n    at " << a.point.location << " (" << a.point.op << ")";
    for (auto &[name, v] : a.point.iterations)
      os << ", " << name << " = " << v;
    os << "\n";
  }
  if (!f.sizes.empty()) {
    os << "  sizes:";
    for (auto &[name, v] : f.sizes)
      os << " " << name << "=" << v;
    os << "\n";
  }
  for (size_t i = 0; i < f.actualTags.size(); ++i)
    os << "  tag of operand " << i << ": " << formatTag(f.actualTags[i]) << "\n";
  if (!f.expected.empty() && f.expected != line)
    os << "  expected: " << f.expected << "\n";
  if (f.replay.status != Replay::Status::NotRun)
    os << "  replay: " << replayName(f.replay.status) << ": " << f.replay.detail << "\n";
  return os.str();
}

std::string findingToJson(const Finding &f) { return findingJson(f).dump(2); }

std::string formatResult(const VerifyResult &result) {
  std::ostringstream os;
  for (const KernelReport &k : result.kernels) {
    os << k.kernel << ": " << (k.proved_all() ? "proved" : "NOT proved") << " (" << k.proved
       << " of " << k.queries << " queries unsat, " << static_cast<int>(k.seconds * 1000)
       << " ms, " << k.findings.size() << " finding(s))\n";
    for (const Finding &f : k.findings)
      os << formatFinding(f);
  }
  return os.str();
}

std::string resultToJson(const VerifyResult &result) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelReport &k : result.kernels) {
    nlohmann::json findings = nlohmann::json::array();
    for (const Finding &f : k.findings)
      findings.push_back(findingJson(f));
    kernels.push_back({{"kernel", k.kernel},
                       {"proved", k.proved_all()},
                       {"queries", k.queries},
                       {"unsat", k.proved},
                       {"seconds", k.seconds},
                       {"findings", findings}});
  }
  return nlohmann::json{{"proved", result.proved()}, {"kernels", kernels}}.dump(2);
}

} // namespace argus::verify
