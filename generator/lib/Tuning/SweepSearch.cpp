//===- SweepSearch.cpp - the agent's sweep of one group -------------------===//
//
// Each configuration is one search (agent/Search.h). A proposal becomes a
// candidate of the group's template; candidates the database already holds
// are read back (so a killed search, started again with the same seed,
// replays its proposals and resumes), the others are built, proved, checked
// and timed by the engine and recorded with the techniques that reached
// them. The planner's context is every result of the same op and template at
// other configurations in the database: this sweep's earlier ones and those
// of earlier sweeps, never this sweep's later ones.
//
//===----------------------------------------------------------------------===//
#include "SweepEngine.h"

#include "argus/Agent/LlmProposer.h"
#include "argus/Agent/Search.h"
#include "argus/Emit/KernelInstance.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <climits>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace argus::tuning {

const std::vector<std::string> &sweepAgents() {
  static const std::vector<std::string> agents = {"rule", "planner", "random", "grid", "exhaustive", "llm"};
  return agents;
}

/// "A=1,B=2" back into a point; nullopt when malformed.
std::optional<agent::Point> parametersPoint(const std::string &parameters) {
  agent::Point point;
  std::istringstream in(parameters);
  for (std::string item; std::getline(in, item, ',');) {
    size_t eq = item.find('=');
    if (eq == std::string::npos) return std::nullopt;
    char *end = nullptr;
    long long v = std::strtoll(item.c_str() + eq + 1, &end, 10);
    if (*end || v <= 0) return std::nullopt;
    point[item.substr(0, eq)] = v;
  }
  return point;
}

agent::Roofs agentRoofs(const machine::Peaks &peaks, double elementBytes, int threads) {
  agent::Roofs r;
  const double gflops = elementBytes < 4 && peaks.bf16Gflops > 0 ? peaks.bf16Gflops : peaks.f32Gflops;
  r.flopsPerSecond = (gflops > 0 ? gflops : 200) * 1e9;
  r.bytesPerSecond = (peaks.readGbps > 0 ? peaks.readGbps : 20) * 1e9;
  r.threads = std::max(threads, 1);
  return r;
}

agent::Outcome agentOutcome(const CandidateResult &r) {
  agent::Outcome o;
  o.detail = r.detail;
  o.measured = r.measured;
  if (r.verification == Verification::Refuted) o.status = agent::Outcome::Status::Refuted;
  else if (r.verification == Verification::Failed) o.status = agent::Outcome::Status::Failed;
  else if (!r.measured && r.seconds > 0) { // built, not run: the cost model's time
    o.status = agent::Outcome::Status::Ok;
    o.seconds = r.seconds;
  } else if (!r.correct || r.seconds <= 0) o.status = agent::Outcome::Status::Incorrect;
  else {
    o.status = agent::Outcome::Status::Ok;
    o.seconds = r.seconds;
  }
  return o;
}

} // namespace argus::tuning

namespace argus::tuning::detail {

std::string pointParameters(const agent::Point &point) {
  std::string text;
  for (const auto &[name, value] : point) text += (text.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return text;
}

namespace {

/// The features of a configuration from its database key ("bf16->bf16 N=6144
/// K=4096 M=16", "bf16 D=128 DV=128 GROUP=4 S=1024 causal", "bf16 N=14336
/// K=4096 M=128 BM=16"), so results of earlier sweeps of other catalogs can
/// be context.
agent::Features featuresOfKey(const std::string &family, const std::string &key, double threads) {
  std::map<std::string, double> fields;
  std::istringstream in(key);
  for (std::string token; in >> token;)
    if (size_t eq = token.find('='); eq != std::string::npos) fields[token.substr(0, eq)] = std::atof(token.c_str() + eq + 1);
  agent::Features f = {{"ELEM", key.rfind("f32", 0) == 0 ? 4.0 : 2.0}, {"THREADS", threads}};
  if (family == "attention") {
    f["SQ"] = f["SKV"] = fields["S"];
    f["D"] = fields["D"];
    f["GROUP"] = fields["GROUP"];
  } else {
    f["N"] = fields["N"];
    f["K"] = fields["K"];
    f["M"] = family == "moe" ? fields["BM"] : fields["M"]; // an MoE tier is its tile rows
  }
  return f;
}

std::string join(const std::vector<std::string> &items) {
  std::string s;
  for (const std::string &i : items) s += (s.empty() ? "" : ",") + i;
  return s;
}

/// What `--agent llm` needs of the tree: the space's template and the
/// system prompt (the DSL reference and the reply format).
struct LlmTexts {
  std::string templateText, systemPrompt;
};

/// Appends one exchange to the log as a JSON line.
void logExchange(const std::string &path, const SweepConfig &config, const agent::LlmExchange &e) {
  nlohmann::json prompt = nlohmann::json::array();
  for (const agent::ChatMessage &m : e.prompt) prompt.push_back({{"role", m.role}, {"content", m.content}});
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  nlohmann::json line = {{"at", stamp},
                         {"op", config.op},
                         {"configuration", config.key},
                         {"status", agent::chatStatusName(e.reply.status)},
                         {"http_status", e.reply.httpStatus},
                         {"seconds", e.reply.seconds},
                         {"verdict", e.verdict},
                         {"prompt", prompt},
                         {"reply", e.reply.content}};
  std::ofstream(path, std::ios::app) << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

std::unique_ptr<agent::Strategy> makeStrategy(const SweepOptions &opt, const agent::SearchProblem &problem,
                                              const agent::CostModel &model,
                                              const std::vector<agent::Experience> &context, const LlmTexts &texts,
                                              const SweepConfig &config, SweepReport &report) {
  if (opt.agent == "llm") {
    agent::LlmOptions lo;
    lo.model = opt.llm.model;
    lo.systemPrompt = texts.systemPrompt;
    lo.templateText = texts.templateText;
    lo.target = opt.target;
    auto chat = [&opt, &report](const std::vector<agent::ChatMessage> &messages) {
      ++report.llmAsked;
      agent::ChatRequest request;
      request.endpoint = opt.llm.endpoint;
      request.model = opt.llm.model;
      request.apiKey = opt.llm.apiKey;
      request.messages = messages;
      request.timeoutSeconds = opt.llm.timeoutSeconds;
      request.seed = opt.seed;
      return agent::sendChat(request);
    };
    const std::string logPath = (std::filesystem::path(opt.workDir) / "llm-exchanges.jsonl").string();
    auto log = [logPath, config, &report](const agent::LlmExchange &e) {
      report.llmUsed += e.verdict == "proposed";
      logExchange(logPath, config, e);
    };
    return agent::makeLlmProposer(problem, agent::makePlanner(problem, model, context, {opt.seed}), chat,
                                  std::move(lo), log);
  }
  if (opt.agent == "planner") return agent::makePlanner(problem, model, context, {opt.seed});
  if (opt.agent == "random") return agent::makeRandomSearch(problem, opt.seed);
  if (opt.agent == "grid") return agent::makeGridSearch(problem, opt.budget);
  return agent::makeGridSearch(problem, INT_MAX); // exhaustive: the whole admitted space
}

/// A kernel of the LLM's as a candidate: the point's template instance with
/// the kernel's text, named by a hash of that text.
CandidateSource kernelCandidate(CandidateSource source, const std::string &kernel) {
  uint64_t hash = 1469598103934665603ull; // FNV-1a
  for (unsigned char c : kernel) hash = (hash ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  source.templatePath = std::string("llm/") + hex + ".argus";
  source.templateText = kernel;
  source.symbol += std::string("_llm") + hex;
  return source;
}

} // namespace

std::string searchGroup(const SweepGroup &group, TuningDb &db, const SweepOptions &opt,
                        const agent::KnowledgeBase &knowledge, std::set<std::string> &unsearched,
                        const GroupRunner &runGroup, const SearchStatus &status,
                        const std::function<void(const SweepConfig &, int)> &configDone, SweepReport &report) {
  const agent::Space *space = knowledge.space(group.space);
  if (!space) return "the knowledge base has no space '" + group.space + "'";
  if (!space->servesTarget(opt.target))
    return "space '" + space->name + "' of the knowledge base does not serve target " + opt.target;
  LlmTexts texts;
  if (opt.agent == "llm") {
    std::string error;
    const std::filesystem::path home(opt.homeDir);
    if (!emit::readTextFile((home / space->templatePath).string(), texts.templateText, error) ||
        !emit::readTextFile((home / "templates/knowledge/llm-prompt.md").string(), texts.systemPrompt, error))
      return "--agent llm: " + error;
  }
  const auto techniques = knowledge.techniquesOf(space->name);
  const int budget = opt.agent == "exhaustive" ? INT_MAX : opt.budget;

  for (size_t ci = 0; ci < group.configs.size(); ++ci) {
    const SweepConfig &config = group.configs[ci];
    const int threads = opt.threads > 0 ? opt.threads : std::max(opt.peaks.threads, 1);
    agent::CostModel model(
        agentRoofs(opt.peaks, config.features.count("ELEM") ? config.features.at("ELEM") : 2, threads));
    std::vector<agent::Experience> context;
    std::vector<agent::Sample> samples;
    for (const CandidateResult &r : db.results()) {
      if (r.key.op != config.op || r.key.templatePath != space->templatePath ||
          unsearched.count(r.key.op + "\n" + r.key.shapeKey))
        continue;
      std::optional<agent::Point> point = parametersPoint(r.key.parameters);
      if (!point) continue;
      agent::Features f = featuresOfKey(space->family, r.key.shapeKey, threads);
      agent::Outcome o = agentOutcome(r);
      if (o.status == agent::Outcome::Status::Ok && o.measured) samples.push_back({space, f, *point, o.seconds});
      context.push_back({std::move(f), std::move(*point), std::move(o)});
    }
    model.calibrate(samples);

    agent::SearchProblem problem{space, config.features, config.rule, techniques};
    std::unique_ptr<agent::Strategy> strategy = makeStrategy(opt, problem, model, context, texts, config, report);
    std::string error;
    int tried = 0;
    auto evaluate = [&](const std::vector<agent::Proposal> &batch) {
      std::vector<CandidateSource> sources;
      for (const agent::Proposal &p : batch) {
        sources.push_back(p.kernel.empty() ? group.candidateAt(p.point)
                                           : kernelCandidate(group.candidateAt(p.point), p.kernel));
        sources.back().techniques = join(p.techniques);
        if (!p.kernel.empty() && error.empty()) error = db.storeSource(sources.back().templatePath, p.kernel);
      }
      SweepGroup sub = group;
      sub.candidates.clear();
      for (SweepConfig &c : sub.configs) c.candidates.clear();
      for (const CandidateSource &s : sources)
        if (!db.find(config.op, config.key, s.templatePath, s.parameters)) {
          sub.configs[ci].candidates.push_back(sub.candidates.size());
          sub.candidates.push_back(s);
        }
      tried += int(batch.size());
      status(config, opt.agent + " candidate " + std::to_string(tried) +
                         (budget == INT_MAX ? "" : "/" + std::to_string(budget)) + ", " + sources.front().parameters);
      if (!sub.candidates.empty() && error.empty()) error = runGroup(sub);
      std::vector<agent::Outcome> outcomes;
      for (const CandidateSource &s : sources) {
        std::optional<CandidateResult> r = db.find(config.op, config.key, s.templatePath, s.parameters);
        outcomes.push_back(r ? agentOutcome(*r)
                             : agent::Outcome{agent::Outcome::Status::Failed, 0, true,
                                              error.empty() ? "no result was recorded" : error});
      }
      return outcomes;
    };
    agent::SearchResult result =
        agent::runBatchedSearch(*strategy, evaluate, {budget, opt.searchSeconds, std::max(opt.jobs, 1)});
    if (!error.empty()) return error;
    unsearched.erase(config.op + "\n" + config.key);
    configDone(config, int(result.trials.size()));
  }
  return "";
}

} // namespace argus::tuning::detail
