//===- LlmProposer.cpp - a language model proposes whole kernels ----------===//
#include "argus/Agent/LlmProposer.h"

#include "KernelSignature.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>

namespace argus::agent {

namespace {

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string upper(std::string s) {
  for (char &c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string pointText(const Point &p) {
  std::string s;
  for (const auto &[name, value] : p) s += (s.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  return s.empty() ? "(defaults)" : s;
}

std::string timeText(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f us", seconds * 1e6);
  return buf;
}

/// "BM=16, BN=64 BK=256" → point; nullopt when an item is not NAME=positive integer.
std::optional<Point> readParameterList(const std::string &text) {
  Point p;
  std::string items = text;
  std::replace(items.begin(), items.end(), ',', ' ');
  std::istringstream in(items);
  for (std::string item; in >> item;) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) return std::nullopt;
    char *end = nullptr;
    long long v = std::strtoll(item.c_str() + eq + 1, &end, 10);
    if (*end || v <= 0 || end == item.c_str() + eq + 1) return std::nullopt;
    p[item.substr(0, eq)] = v;
  }
  return p;
}

const char *statusText(Outcome::Status s) {
  switch (s) {
  case Outcome::Status::Ok: return "ok";
  case Outcome::Status::Refuted: return "refuted by the verifier";
  case Outcome::Status::Failed: return "failed to build";
  case Outcome::Status::Incorrect: return "wrong results against the float64 reference";
  }
  return "?";
}

} // namespace

std::variant<KernelReply, std::string> readKernelReply(const std::string &content) {
  KernelReply reply;
  std::istringstream in(content);
  bool inBlock = false, found = false;
  std::string block, parameterLine;
  for (std::string line; std::getline(in, line);) {
    const std::string t = trim(line);
    if (t.rfind("```", 0) == 0) {
      if (inBlock && !found && block.find("@kernel") != std::string::npos) {
        reply.kernel = block;
        found = true;
      }
      inBlock = !inBlock;
      block.clear();
      continue;
    }
    if (inBlock) block += line + "\n";
    else if (upper(t).rfind("PARAMETERS", 0) == 0 && t.find(':') != std::string::npos)
      parameterLine = t.substr(t.find(':') + 1);
  }
  if (!found)
    return std::string(inBlock ? "the reply's code block is never closed (was it cut off?)"
                               : "the reply holds no fenced code block with a @kernel function");
  if (!parameterLine.empty()) {
    std::optional<Point> p = readParameterList(parameterLine);
    if (!p) return "the PARAMETERS line '" + trim(parameterLine) + "' is not a list of NAME=positive integer";
    reply.parameters = std::move(*p);
  }
  return reply;
}

namespace {

struct Tried {
  Proposal proposal;
  std::optional<Outcome> outcome; // none while pending
};

class LlmProposer final : public Strategy {
public:
  LlmProposer(const SearchProblem &problem, std::unique_ptr<Strategy> fallback, ChatFunction chat,
              LlmOptions options, ExchangeLog log)
      : p_(problem), fallback_(std::move(fallback)), chat_(std::move(chat)), options_(std::move(options)),
        log_(std::move(log)) {
    auto sig = detail::readKernelSignature(options_.templateText);
    if (auto *s = std::get_if<detail::KernelSignature>(&sig)) templateSignature_ = *s;
    else asking_ = false; // a template that does not parse leaves nothing to compare against
  }

  std::string name() const override { return "llm"; }

  std::optional<Proposal> next() override {
    std::optional<Proposal> proposal;
    if (!tried_.empty() && asking_) proposal = ask();
    if (!proposal) proposal = fallback_->next();
    if (proposal) tried_.push_back({*proposal, std::nullopt});
    return proposal;
  }

  void observe(const Proposal &proposal, const Outcome &outcome) override {
    if (proposal.kernel.empty()) fallback_->observe(proposal, outcome);
    for (Tried &t : tried_)
      if (!t.outcome && t.proposal.point == proposal.point && t.proposal.kernel == proposal.kernel) {
        t.outcome = outcome;
        break;
      }
  }

private:
  /// One question to the model; a proposal, or nullopt (logged) when its
  /// reply cannot be used.
  std::optional<Proposal> ask() {
    LlmExchange exchange;
    exchange.prompt = {{"system", options_.systemPrompt}, {"user", userMessage()}};
    exchange.reply = chat_(exchange.prompt);
    std::optional<Proposal> proposal;
    if (exchange.reply.status != ChatReply::Status::Ok)
      exchange.verdict = std::string(chatStatusName(exchange.reply.status)) + ": " + exchange.reply.error;
    else if (std::string why = judge(exchange.reply.content, proposal); !why.empty())
      exchange.verdict = "unusable: " + why;
    else
      exchange.verdict = "proposed";
    if (proposal) {
      consecutiveFailures_ = 0;
      lastProblem_.clear();
    } else {
      lastProblem_ = exchange.verdict;
      if (++consecutiveFailures_ >= options_.maxConsecutiveFailures) {
        asking_ = false;
        exchange.verdict += "; " + std::to_string(consecutiveFailures_) +
                            " unusable replies in a row, the model is not asked again for this configuration";
      }
    }
    if (log_) log_(exchange);
    return proposal;
  }

  /// "" and the proposal when the reply's kernel may be tried, else why not.
  std::string judge(const std::string &content, std::optional<Proposal> &out) const {
    auto read = readKernelReply(content);
    if (auto *why = std::get_if<std::string>(&read)) return *why;
    KernelReply reply = std::move(std::get<KernelReply>(read));
    auto sig = detail::readKernelSignature(reply.kernel);
    if (auto *why = std::get_if<std::string>(&sig)) return "the kernel cannot stand in for the template: " + *why;
    if (std::string why = detail::signatureMismatch(templateSignature_, std::get<detail::KernelSignature>(sig));
        !why.empty())
      return "the kernel cannot stand in for the template: " + why;
    Point point = bestPoint();
    for (const auto &[name, value] : reply.parameters) {
      if (!p_.space->ladder(name)) return "PARAMETERS names '" + name + "', which the space does not tune";
      point[name] = value;
    }
    if (!reply.parameters.empty() && !p_.space->admits(p_.features, point))
      return "the parameters " + pointText(point) + " are outside the space (its ladders and constraints)";
    Proposal p;
    p.point = std::move(point);
    // The template itself at new parameters is an ordinary candidate.
    if (trim(reply.kernel) != trim(options_.templateText)) p.kernel = reply.kernel;
    for (const Tried &t : tried_)
      if (t.proposal.point == p.point && trim(t.proposal.kernel) == trim(p.kernel))
        return "it repeats a candidate already tried (" + pointText(p.point) + ")";
    p.techniques = {"llm:" + options_.model};
    out = std::move(p);
    return "";
  }

  const Tried *best() const {
    const Tried *b = nullptr;
    for (const Tried &t : tried_)
      if (t.outcome && t.outcome->status == Outcome::Status::Ok && t.outcome->seconds > 0 &&
          (!b || t.outcome->seconds < b->outcome->seconds))
        b = &t;
    return b;
  }

  Point bestPoint() const {
    if (const Tried *b = best()) return b->proposal.point;
    return tried_.empty() ? p_.rule : tried_.front().proposal.point;
  }

  std::string userMessage() const {
    std::ostringstream m;
    m << "## Configuration\nFamily " << p_.space->family << ", target " << options_.target << ". Features:";
    for (const auto &[name, value] : p_.features) m << " " << name << "=" << value;
    m << "\n\n## Search space '" << p_.space->name << "'\n" << trim(p_.space->note) << "\nParameters and their ladders:\n";
    for (const auto &[name, ladder] : p_.space->parameters) {
      m << "- " << name << ":";
      for (int64_t v : ladder) m << " " << v;
      m << "\n";
    }
    if (!p_.space->constraints.empty()) {
      m << "Constraints:";
      for (const Condition &c : p_.space->constraints) m << " `" << c.text << "`";
      m << "\n";
    }
    m << "\n## Techniques of the knowledge base for this space\n";
    for (const Technique *t : p_.techniques) {
      m << "- **" << t->name << "**: " << trim(t->note);
      if (!t->keeps.empty()) {
        m << " Must keep:";
        for (const std::string &k : t->keeps) m << " " << k;
        m << ".";
      }
      m << "\n";
    }
    const Tried *b = best();
    m << "\n## Current kernel\n";
    if (b)
      m << "The fastest so far: " << timeText(b->outcome->seconds) << " at " << pointText(b->proposal.point)
        << (b->proposal.kernel.empty() ? " (the template)" : " (a kernel you proposed)") << ".\n";
    else
      m << "The template; nothing has been timed yet. Parameters: " << pointText(bestPoint()) << ".\n";
    m << "```python\n" << trim(b && !b->proposal.kernel.empty() ? b->proposal.kernel : options_.templateText)
      << "\n```\n";
    m << "\n## Candidates tried (latest last)\n";
    const size_t from = tried_.size() > size_t(options_.historyShown) ? tried_.size() - options_.historyShown : 0;
    for (size_t i = from; i < tried_.size(); ++i) {
      const Tried &t = tried_[i];
      m << "- #" << i + 1 << " " << (t.proposal.kernel.empty() ? "template" : "your kernel") << ", "
        << pointText(t.proposal.point) << ": ";
      if (!t.outcome) m << "pending\n";
      else if (t.outcome->status == Outcome::Status::Ok) m << timeText(t.outcome->seconds) << "\n";
      else {
        std::string cls = classifyFailure(t.outcome->detail);
        m << statusText(t.outcome->status) << (cls.empty() ? "" : " [" + cls + "]") << "\n";
      }
    }
    for (auto it = tried_.rbegin(); it != tried_.rend(); ++it)
      if (it->outcome && it->outcome->status != Outcome::Status::Ok) {
        std::string detail = it->outcome->detail;
        if (detail.size() > 4000) detail = detail.substr(0, 4000) + "\n[...]";
        m << "\n## Last failure (#" << (tried_.rend() - it) << ", "
          << (it->proposal.kernel.empty() ? "the template" : "your kernel") << ")\n```text\n" << trim(detail)
          << "\n```\n";
        break;
      }
    if (!lastProblem_.empty()) m << "\n## Your previous reply could not be used\n" << lastProblem_ << "\n";
    m << "\nPropose one kernel that should be faster than the current one for this configuration, "
         "as the reply format says.\n";
    return m.str();
  }

  SearchProblem p_;
  std::unique_ptr<Strategy> fallback_;
  ChatFunction chat_;
  LlmOptions options_;
  ExchangeLog log_;
  detail::KernelSignature templateSignature_;
  std::vector<Tried> tried_;
  std::string lastProblem_;
  int consecutiveFailures_ = 0;
  bool asking_ = true;
};

} // namespace

std::unique_ptr<Strategy> makeLlmProposer(const SearchProblem &problem, std::unique_ptr<Strategy> fallback,
                                          ChatFunction chat, LlmOptions options, ExchangeLog log) {
  return std::make_unique<LlmProposer>(problem, std::move(fallback), std::move(chat), std::move(options),
                                       std::move(log));
}

} // namespace argus::agent
