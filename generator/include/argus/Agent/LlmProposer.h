//===- LlmProposer.h - a language model proposes whole kernels --*- C++ -*-===//
//
// `--agent llm`: after the rule's point, each step asks a chat model
// (ChatClient.h) for one kernel. The prompt carries the DSL reference and
// the reply format (templates/knowledge/llm-prompt.md), the configuration,
// the space's ladders and constraints, its knowledge-base techniques with
// their notes, the current best kernel with its parameters and time, what
// was tried so far, and the last failure's counterexample or error.
//
// A reply must hold the kernel in one fenced code block and may choose the
// tunable parameters (`PARAMETERS: BM=16, BN=64, BK=256`). The kernel must
// keep the template's signature (KernelSignature.h); it then enters the same
// verify → compile → check → time pipeline as any candidate. A reply that
// cannot be used (no connection, a timeout, an HTTP error, a malformed body
// or kernel, a refusal, a repeat) is logged and the step falls back on the
// planner, so the budget is never spent on nothing; after
// `maxConsecutiveFailures` such replies in a row the model is not asked
// again in this search. Replies are not deterministic: a resumed sweep asks
// again.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_AGENT_LLMPROPOSER_H
#define ARGUS_AGENT_LLMPROPOSER_H

#include "argus/Agent/ChatClient.h"
#include "argus/Agent/Search.h"

#include <functional>
#include <variant>

namespace argus::agent {

struct LlmOptions {
  std::string model;        // names the technique trail: "llm:<model>"
  std::string systemPrompt; // the DSL reference and the reply format
  std::string templateText; // the space's template: the kernel the model starts from
  std::string target;       // e.g. cpu-avx2
  int maxConsecutiveFailures = 3;
  int historyShown = 16;    // latest trials listed in the prompt
};

/// One exchange with the model, as the log keeps it.
struct LlmExchange {
  std::vector<ChatMessage> prompt;
  ChatReply reply;
  std::string verdict; // "proposed" or why the reply was not used
};

using ChatFunction = std::function<ChatReply(const std::vector<ChatMessage> &)>;
using ExchangeLog = std::function<void(const LlmExchange &)>;

/// What a usable reply holds.
struct KernelReply {
  std::string kernel;
  Point parameters; // empty when the reply names none
};

/// The kernel and parameters of a reply's text, or why there are none.
std::variant<KernelReply, std::string> readKernelReply(const std::string &content);

/// The LLM proposer over `problem`; `fallback` (the planner) proposes the
/// rule's point first and whenever the model has nothing usable.
std::unique_ptr<Strategy> makeLlmProposer(const SearchProblem &problem, std::unique_ptr<Strategy> fallback,
                                          ChatFunction chat, LlmOptions options, ExchangeLog log);

} // namespace argus::agent

#endif // ARGUS_AGENT_LLMPROPOSER_H
